/** Deposit addresses: one per account and platform, at the platform's next child index on first use. */
import type { Kysely } from 'kysely';
import { isUniqueViolation, MAX_ATTEMPTS } from './allocation.js';
import type { Database } from './schema.js';

/** The account's deposit address on a platform, allocated at the platform's next child index on first use. */
export async function depositAddressOf(
  db: Kysely<Database>,
  account: string,
  platformId: string,
  derive: (index: number) => string,
  now: string,
): Promise<string> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const existing = await db
      .selectFrom('deposit_addresses')
      .select('address')
      .where('account', '=', account)
      .where('platform_id', '=', platformId)
      .executeTakeFirst();
    if (existing) return existing.address;
    const last = await db
      .selectFrom('deposit_addresses')
      .select((eb) => eb.fn.max('child_index').as('max'))
      .where('platform_id', '=', platformId)
      .executeTakeFirst();
    const index = last?.max === null || last?.max === undefined ? 0 : Number(last.max) + 1;
    try {
      await db
        .insertInto('deposit_addresses')
        .values({ account, platform_id: platformId, child_index: index, address: derive(index), created_at: now })
        .execute();
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      // Another request took this index or this account's row first: read again.
    }
  }
  throw new Error('deposit address allocation did not settle');
}
