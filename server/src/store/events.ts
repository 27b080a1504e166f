/**
 * The account's events (GET /v1/events): recorded with the write they announce, read by sequence.
 *
 * **Two numbers.** `seq` counts every event of the server: the instance's reader follows it (its high-water
 * mark) and it orders everything. `account_seq` counts one account's events, 1, 2, 3… with no gap (a
 * rolled-back transaction takes its ids back with it): it is the event's id, what a client sees and resumes
 * from, and tells it nothing of other accounts. Both are drawn in the same transaction, in the same order,
 * so within an account they grow together: a reader that follows `seq` hands out each account's ids in
 * order. `event_accounts` keeps each account's last id (event-ids.ts; migration 0009,
 * migrations/0009-account-event-ids.ts).
 *
 * **Order rule.** A reader resumes from the highest `seq` it has read (`seq > last`), so a lower `seq` must
 * never become visible after a higher one. SQLite has one writer at a time, so sequence order is commit
 * order. PostgreSQL hands out sequence values to concurrent transactions that may commit in another order,
 * so every transaction that records events first takes one transaction-scoped advisory lock of the schema
 * (`pg_advisory_xact_lock`), held from before its `seq` values are drawn until it commits: the writers'
 * event inserts (the tail of their transactions) then commit one after another, in `seq` order, and once a
 * `seq` is visible every lower one is committed or never will be (a rolled-back one is a gap). Only the
 * last statements of an import's transaction wait for the lock. The same lock orders the accounts' ids: the
 * rows of `event_accounts` are only ever updated under it, so writers never wait on each other's rows there.
 */
import { type Kysely, sql, type Transaction } from 'kysely';
import { drawEventIds } from './event-ids.js';
import { isPostgres, withRows } from './rows.js';
import type { Database } from './schema.js';

export interface StoredEvent {
  seq: number;
  /** The event's id: its place among its account's events. */
  id: number;
  account: string;
  document: string;
}

/** Where an account's events stand: its last id (0 before any), and the ids below `legacyThrough`, of before. */
export interface AccountPosition {
  last: number;
  legacyThrough: number;
}

export interface EventRecord {
  account: string;
  movement_id: string;
  document: string;
}

const EVENT_COLUMNS = ['account', 'account_seq', 'movement_id', 'document', 'created_at'] as const;

/**
 * Records `events` in `trx`, the transaction of the write they announce, in order (see the order rule): each
 * account's ids are drawn for the whole batch at once (event-ids.ts), then the events are inserted with them,
 * in the order given (the order their `seq` is drawn in).
 */
export async function recordMovementEvents(trx: Transaction<Database>, events: readonly EventRecord[]): Promise<void> {
  if (events.length === 0) return;
  const at = new Date().toISOString();
  if (isPostgres(trx)) {
    await sql`select pg_advisory_xact_lock(hashtext('movement_events_' || current_schema()))`.execute(trx);
  }
  const counts = new Map<string, number>();
  for (const { account } of events) counts.set(account, (counts.get(account) ?? 0) + 1);
  const next = await drawEventIds(trx, counts);
  const rows = events.map((e) => {
    const id = next.get(e.account) ?? 0;
    next.set(e.account, id + 1);
    return { ...e, account_seq: id, created_at: at };
  });
  for (const values of withRows(trx, 'movement_events', EVENT_COLUMNS, rows)) {
    await values(trx.insertInto('movement_events')).execute();
  }
}

/**
 * Where the events stand: `latest`, the highest `seq` stored or pruned (0 before any), and `pruned`, the
 * highest pruned (events at or below it are gone). Every event up to `latest` is committed (the order
 * rule), so a reader may take it as its high-water mark.
 */
export async function eventPositions(db: Kysely<Database>): Promise<{ latest: number; pruned: number }> {
  const row = await db
    .selectFrom('event_retention')
    .select((eb) => [
      'pruned_through',
      eb
        .selectFrom('movement_events')
        .select((e) => e.fn.max('seq').as('m'))
        .as('latest'),
    ])
    .where('id', '=', 1)
    .executeTakeFirst();
  const pruned = Number(row?.pruned_through ?? 0);
  return { latest: Math.max(pruned, Number(row?.latest ?? 0)), pruned };
}

/**
 * The events after `after` up to `through` (inclusive; null: all of them), by `seq`, oldest first: of
 * `accounts` only, or of every account when it is null. (Events of before migration 0009, without an id of
 * their account, are not handed out: an instance's reader starts after them.)
 */
export async function eventsBetween(
  db: Kysely<Database>,
  after: number,
  through: number | null,
  accounts: readonly string[] | null,
  limit: number,
): Promise<StoredEvent[]> {
  let query = db
    .selectFrom('movement_events')
    .select(['seq', 'account_seq', 'account', 'document'])
    .where('seq', '>', after)
    .where('account_seq', 'is not', null);
  if (through !== null) query = query.where('seq', '<=', through);
  if (accounts !== null) query = query.where('account', 'in', accounts);
  const rows = await query.orderBy('seq').limit(limit).execute();
  return rows.map(storedEvent);
}

/** Where `account`'s events stand (an account without any: 0 and 0). */
export async function accountPosition(db: Kysely<Database>, account: string): Promise<AccountPosition> {
  const row = await db
    .selectFrom('event_accounts')
    .select(['last_id', 'legacy_through'])
    .where('account', '=', account)
    .executeTakeFirst();
  return { last: Number(row?.last_id ?? 0), legacyThrough: Number(row?.legacy_through ?? 0) };
}

/** `account`'s events after its id `after`, by id, oldest first (those pruned are gone: ids then skip). */
export async function accountEventsAfter(
  db: Kysely<Database>,
  account: string,
  after: number,
  limit: number,
): Promise<StoredEvent[]> {
  const rows = await db
    .selectFrom('movement_events')
    .select(['seq', 'account_seq', 'account', 'document'])
    .where('account', '=', account)
    .where('account_seq', '>', after)
    .orderBy('account_seq')
    .limit(limit)
    .execute();
  return rows.map(storedEvent);
}

const storedEvent = (r: { seq: number; account_seq: number | null; account: string; document: string }) => ({
  seq: Number(r.seq),
  id: Number(r.account_seq),
  account: r.account,
  document: r.document,
});

/**
 * Deletes the events recorded before `before` (ISO time), the oldest `batch` of them at most (all by default),
 * and raises the pruned mark to the highest deleted; returns how many were deleted. Safe from several
 * instances at once (the mark only grows).
 */
export async function pruneEventsBefore(db: Kysely<Database>, before: string, batch?: number): Promise<number> {
  return db.transaction().execute(async (trx) => {
    let through: number;
    if (batch === undefined) {
      const row = await trx
        .selectFrom('movement_events')
        .select((eb) => eb.fn.max('seq').as('m'))
        .where('created_at', '<', before)
        .executeTakeFirst();
      through = Number(row?.m ?? 0);
    } else {
      // The oldest `batch` by time (by its index; the sequence follows the time): the highest of them is the mark.
      const rows = await trx
        .selectFrom('movement_events')
        .select('seq')
        .where('created_at', '<', before)
        .orderBy('created_at')
        .limit(batch)
        .execute();
      through = rows.reduce((high, row) => Math.max(high, Number(row.seq)), 0);
    }
    if (!through) return 0;
    const deleted = await trx.deleteFrom('movement_events').where('seq', '<=', through).executeTakeFirst();
    await trx
      .updateTable('event_retention')
      .set({ pruned_through: through })
      .where('id', '=', 1)
      .where('pruned_through', '<', through)
      .execute();
    return Number(deleted.numDeletedRows);
  });
}
