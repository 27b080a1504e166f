/** Staking yields, from the catalogue. */
import { ApiError } from '../errors.js';
import type { CatalogueSnapshot } from '../store/catalogue.js';

/** The staking APY of a currency, or the 404 that says it has none. */
export function stakingYieldOf(snapshot: CatalogueSnapshot, currency: string): number {
  const apy = snapshot.stakingYield.get(currency);
  if (apy === undefined) throw new ApiError('staking_yield_not_found', undefined, { details: { currency } });
  return Number(apy);
}
