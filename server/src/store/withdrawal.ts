/**
 * Withdrawal proxy addresses: one per route (account, currency, destination, platform), allocated on first
 * use, at most `cap` per account.
 *
 * A route's destination is stored in its normal form (domain/addresses.ts). Rows stored before destinations
 * were normalised may hold another letter case of it: where the platform's addresses ignore case
 * (`caseless`), a route is found by `lower(destination)`, and of several rows of one destination the first
 * allocated is the route's proxy. No migration rewrites them, so the previous release still finds its own.
 *
 * The cap is the store's count of the account's proxies, checked by the insert itself. Two concurrent
 * allocations cannot both pass it: each inserts at the next index it read, and of two that read the same
 * one, the second fails on the index's uniqueness and tries again, counting the first. On PostgreSQL the
 * allocations of one schema take turns under a transaction-scoped advisory lock, so that a flood of them
 * (across instances) waits its turn instead of retrying until the retries run out; within an instance they
 * take turns before they take a connection (`inTurn`). On SQLite, where one process writes, each try is one
 * statement.
 */
import { type Kysely, sql } from 'kysely';
import { isUniqueViolation, MAX_ATTEMPTS } from './allocation.js';
import { isPostgres } from './rows.js';
import type { Database } from './schema.js';

export interface WithdrawalRoute {
  account: string;
  currencyId: string;
  /** The destination in its normal form. */
  destination: string;
  platformId: string;
  /** The platform's addresses ignore letter case: rows holding another case of `destination` are the route's. */
  caseless: boolean;
}

/** A proxy address, or the account's cap reached (no proxy allocated). */
export type Allocation = { address: string } | { full: true };

/** The route's proxy address, if one was allocated (the first allocated, if several). */
export async function proxyAddressFound(db: Kysely<Database>, route: WithdrawalRoute): Promise<string | null> {
  const row = await db
    .selectFrom('withdrawal_addresses')
    .select('proxy_address')
    .where('account', '=', route.account)
    .where('currency_id', '=', route.currencyId)
    .where('platform_id', '=', route.platformId)
    .where((eb) =>
      route.caseless
        ? eb(eb.fn('lower', ['destination']), '=', route.destination)
        : eb('destination', '=', route.destination),
    )
    .orderBy('proxy_index')
    .limit(1)
    .executeTakeFirst();
  return row?.proxy_address ?? null;
}

/** How many proxies the account holds. */
export async function proxyCount(db: Kysely<Database>, account: string): Promise<number> {
  const row = await db
    .selectFrom('withdrawal_addresses')
    .select((eb) => eb.fn.countAll().as('count'))
    .where('account', '=', account)
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

/** Serialises the allocations of this schema's proxies until the transaction ends (PostgreSQL). */
const allocationLock = sql`select pg_advisory_xact_lock(hashtext(current_schema() || '.withdrawal_addresses'))`;

/** One try: the route's proxy, else a new one at the next index if the account has room. */
async function allocateOnce(
  db: Kysely<Database>,
  route: WithdrawalRoute,
  derive: (index: number) => string,
  cap: number,
  now: string,
): Promise<Allocation> {
  const existing = await proxyAddressFound(db, route);
  if (existing) return { address: existing };
  const last = await db
    .selectFrom('withdrawal_addresses')
    .select((eb) => eb.fn.max('proxy_index').as('max'))
    .executeTakeFirst();
  // Nonce 0 is the seed's own first account; proxies start at 1.
  const index = last?.max === null || last?.max === undefined ? 1 : Number(last.max) + 1;
  const address = derive(index);
  const { account, currencyId, destination, platformId } = route;
  // The route still has no proxy and the account has room: checked by the statement that inserts.
  const sameRoute = route.caseless ? sql`lower(destination) = ${destination}` : sql`destination = ${destination}`;
  const result = await db
    .insertInto('withdrawal_addresses')
    .columns(['proxy_index', 'account', 'currency_id', 'destination', 'platform_id', 'proxy_address', 'created_at'])
    .expression(
      sql`select cast(${index} as integer), ${account}, ${currencyId}, ${destination}, ${platformId}, ${address}, ${now}
        where not exists (select 1 from withdrawal_addresses
            where account = ${account} and currency_id = ${currencyId} and platform_id = ${platformId} and ${sameRoute})
          and (select count(*) from withdrawal_addresses where account = ${account}) < ${cap}`,
    )
    .executeTakeFirst();
  if (Number(result.numInsertedOrUpdatedRows ?? 0) > 0) return { address };
  const allocated = await proxyAddressFound(db, route);
  return allocated ? { address: allocated } : { full: true };
}

/** Per database handle, the end of the last allocation waiting or running in this process. */
const turns = new WeakMap<object, Promise<void>>();

/**
 * Runs `work` after every allocation this process began before it, on the same database. Waiting for the
 * advisory lock inside a transaction holds a pool connection: 200 allocations at once (one account's new
 * destinations) held every connection of the pool while they took turns, and every other request of the
 * instance waited for one, past the pool's 5 s on a slow host (503). Taking turns here first, a flood holds
 * one connection an instance. How many wait is bounded by the requests in progress (the connection caps and
 * the overload checks bound those), and each waits no longer than it would have for the lock.
 */
function inTurn<T>(db: object, work: () => Promise<T>): Promise<T> {
  const turn = (turns.get(db) ?? Promise.resolve()).then(work);
  const over = () => {};
  turns.set(db, turn.then(over, over));
  return turn;
}

/**
 * The route's proxy address, allocated at the next proxy index on first use while the account holds fewer
 * than `cap` proxies; `{ full: true }` when it holds `cap` (or more, from before a lower cap).
 */
export async function allocateProxyAddress(
  db: Kysely<Database>,
  route: WithdrawalRoute,
  derive: (index: number) => string,
  cap: number,
  now: string,
): Promise<Allocation> {
  const postgres = isPostgres(db);
  const allocate = async () => {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      try {
        if (!postgres) return await allocateOnce(db, route, derive, cap, now);
        return await db.transaction().execute(async (trx) => {
          await allocationLock.execute(trx);
          return allocateOnce(trx, route, derive, cap, now);
        });
      } catch (error) {
        // A concurrent allocation took the index (an instance of a release without the lock, or SQLite's
        // other requests between the read and the insert), or inserted this route: read again and retry.
        if (!isUniqueViolation(error)) throw error;
      }
    }
    throw new Error('proxy address allocation did not settle');
  };
  return postgres ? inTurn(db, allocate) : allocate();
}
