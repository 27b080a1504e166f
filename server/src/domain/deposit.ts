/**
 * Deposit addresses: the signed-in account's address on a platform, for an active deposit. Derived from the
 * platform's extended public key at the account's child index (allocated on first use); on the ledger's
 * own platform, the account's own ledger address.
 */
import type { Kysely } from 'kysely';
import { ApiError } from '../errors.js';
import type { TermsRow } from '../store/catalogue.js';
import { depositAddressOf } from '../store/deposit.js';
import type { Database } from '../store/schema.js';
import { depositAddressFor, isLedgerPlatform } from './addresses.js';
import type { CatalogueCache } from './catalogue-cache.js';
import { platformOrNotFound } from './platforms.js';
import { termsOrNotFound } from './terms.js';

/** The terms of an active deposit of `currency` on `platform` (or its default one) and the account's address. */
export async function depositAddress(
  services: { catalogue: CatalogueCache; db: Kysely<Database> },
  account: string,
  currency: string,
  platform: string | 'default',
  now: string,
): Promise<{ terms: TermsRow; address: string }> {
  const snapshot = await services.catalogue.get();
  const terms = termsOrNotFound(snapshot, 'deposit', currency, platform);
  if (terms.status !== 'active') {
    throw new ApiError('operation_disabled', `Deposit of ${currency} on ${terms.platform_id} is inactive`, {
      details: { currency, platform: terms.platform_id },
    });
  }
  const addressing = platformOrNotFound(snapshot, terms.platform_id);
  if (isLedgerPlatform(addressing)) return { terms, address: account };
  const address = await depositAddressOf(
    services.db,
    account,
    terms.platform_id,
    (index) => depositAddressFor(addressing, index),
    now,
  );
  return { terms, address };
}
