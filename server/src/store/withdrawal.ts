/** Withdrawal proxy addresses: one per route (account, currency, destination, platform), on first use. */
import type { Kysely } from 'kysely';
import { isUniqueViolation, MAX_ATTEMPTS } from './allocation.js';
import type { Database } from './schema.js';

export interface WithdrawalRoute {
  account: string;
  currencyId: string;
  destination: string;
  platformId: string;
}

/** The proxy address of a withdrawal route, allocated at the next proxy index on first use. */
export async function proxyAddressOf(
  db: Kysely<Database>,
  route: WithdrawalRoute,
  derive: (index: number) => string,
  now: string,
): Promise<string> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const existing = await db
      .selectFrom('withdrawal_addresses')
      .select('proxy_address')
      .where('account', '=', route.account)
      .where('currency_id', '=', route.currencyId)
      .where('destination', '=', route.destination)
      .where('platform_id', '=', route.platformId)
      .executeTakeFirst();
    if (existing) return existing.proxy_address;
    const last = await db
      .selectFrom('withdrawal_addresses')
      .select((eb) => eb.fn.max('proxy_index').as('max'))
      .executeTakeFirst();
    // Nonce 0 is the seed's own first account; proxies start at 1.
    const index = last?.max === null || last?.max === undefined ? 1 : Number(last.max) + 1;
    try {
      await db
        .insertInto('withdrawal_addresses')
        .values({
          proxy_index: index,
          account: route.account,
          currency_id: route.currencyId,
          destination: route.destination,
          platform_id: route.platformId,
          proxy_address: derive(index),
          created_at: now,
        })
        .execute();
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
  }
  throw new Error('proxy address allocation did not settle');
}
