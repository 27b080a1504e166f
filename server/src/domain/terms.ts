/** Deposit and withdrawal terms: pages of a direction's list, one currency's terms, and their resources. */
import type { components } from '@gateway/generated';
import { ApiError } from '../errors.js';
import { decimalToNumber } from '../lib/decimal.js';
import { type CatalogueSnapshot, termsKey as key, type TermsRow } from '../store/catalogue.js';
import type { Direction } from '../store/schema.js';
import { catalogueAnswer } from './catalogue-cache.js';

type Schemas = components['schemas'];

/** A page of terms in (currency, platform) order, and whether more exist after it. */
export function listTerms(
  catalogue: CatalogueSnapshot,
  direction: Direction,
  page: { limit: number; offset: number },
): { rows: readonly TermsRow[]; hasNext: boolean } {
  const all = catalogue.terms[direction];
  return { rows: all.slice(page.offset, page.offset + page.limit), hasNext: page.offset + page.limit < all.length };
}

export type TermsLookup =
  | { found: true; row: TermsRow }
  | { found: false; missing: 'currency' | 'platform' | 'currency_on_platform' };

/** The terms of a currency on a platform (or on its default platform), or what is missing. */
export function findTerms(
  catalogue: CatalogueSnapshot,
  direction: Direction,
  currencyId: string,
  platformId: string | 'default',
): TermsLookup {
  const defaultPlatform = catalogue.defaultPlatform.get(currencyId);
  if (defaultPlatform === undefined || !catalogue.offered.has(`${direction}|${currencyId}`)) {
    return { found: false, missing: 'currency' };
  }
  const platform = platformId === 'default' ? defaultPlatform : platformId;
  const row = catalogue.termsByKey.get(key(direction, currencyId, platform));
  if (row) return { found: true, row };
  return { found: false, missing: catalogue.platformById.has(platform) ? 'currency_on_platform' : 'platform' };
}

/** The terms of a currency on a platform (or its default one), or the 404 that says what is missing. */
export function termsOrNotFound(
  snapshot: CatalogueSnapshot,
  direction: Direction,
  currency: string,
  platform: string | 'default',
): TermsRow {
  const lookup = findTerms(snapshot, direction, currency, platform);
  if (lookup.found) return lookup.row;
  switch (lookup.missing) {
    case 'currency':
      throw new ApiError('currency_not_found', undefined, { details: { currency } });
    case 'platform':
      throw new ApiError('platform_not_found', undefined, { details: { platform } });
    default:
      throw new ApiError('currency_not_on_platform', undefined, { details: { currency, platform } });
  }
}

/** A page of the currency list of a direction, serialized once per catalogue snapshot. */
export function currencyList<Item>(
  snapshot: CatalogueSnapshot,
  direction: Direction,
  query: { limit: number; offset: number },
  present: (row: TermsRow) => Item,
) {
  return catalogueAnswer(snapshot, `${direction}-currencies|${query.offset}|${query.limit}`, () => {
    const page = listTerms(snapshot, direction, query);
    return { type: 'list' as const, page_info: { has_next_page: page.hasNext }, items: page.rows.map(present) };
  });
}

/** The terms of a currency on a platform, serialized once per catalogue snapshot (or the 404). */
export function currencyTerms<Item>(
  snapshot: CatalogueSnapshot,
  direction: Direction,
  currency: string,
  platform: string,
  present: (row: TermsRow) => Item,
) {
  const row = termsOrNotFound(snapshot, direction, currency, platform);
  return catalogueAnswer(snapshot, `${direction}|${currency}|${platform}`, () => present(row));
}

function termsOf(row: TermsRow) {
  return {
    id: row.currency_id,
    platform_id: row.platform_id,
    chain_asset_id: row.chain_asset_id,
    platform_asset_id: row.platform_asset_id,
    decimals: row.decimals,
    status: row.status,
    allowed_amount: { min: decimalToNumber(row.min_amount), max: decimalToNumber(row.max_amount) },
    fees: { flat: decimalToNumber(row.fee_flat), rate: decimalToNumber(row.fee_rate) },
  };
}

export const depositCurrency = (row: TermsRow): Schemas['DepositCurrency'] => ({
  type: 'deposit_currency',
  ...termsOf(row),
});

export const withdrawalCurrency = (row: TermsRow): Schemas['WithdrawalCurrency'] => ({
  type: 'withdrawal_currency',
  ...termsOf(row),
});
