/**
 * The account's events (GET /v1/events): recorded with the write they announce, read by sequence.
 *
 * **Order rule.** A reader resumes from the highest `seq` it has read (`seq > last`), so a lower `seq` must
 * never become visible after a higher one. SQLite has one writer at a time, so sequence order is commit
 * order. PostgreSQL hands out sequence values to concurrent transactions that may commit in another order,
 * so every transaction that records events first takes one transaction-scoped advisory lock of the schema
 * (`pg_advisory_xact_lock`), held from before its `seq` values are drawn until it commits: the writers'
 * event inserts (the tail of their transactions) then commit one after another, in `seq` order, and once a
 * `seq` is visible every lower one is committed or never will be (a rolled-back one is a gap). Only the
 * last statement of an import's transaction waits for the lock.
 */
import { type Kysely, sql, type Transaction } from 'kysely';
import { isPostgres, withRows } from './rows.js';
import type { Database } from './schema.js';

export interface StoredEvent {
  seq: number;
  account: string;
  document: string;
}

export interface EventRecord {
  account: string;
  movement_id: string;
  document: string;
}

const EVENT_COLUMNS = ['account', 'movement_id', 'document', 'created_at'] as const;

/** Records `events` in `trx`, the transaction of the write they announce, in order (see the order rule). */
export async function recordMovementEvents(trx: Transaction<Database>, events: readonly EventRecord[]): Promise<void> {
  if (events.length === 0) return;
  const at = new Date().toISOString();
  if (isPostgres(trx)) {
    await sql`select pg_advisory_xact_lock(hashtext('movement_events_' || current_schema()))`.execute(trx);
  }
  const rows = events.map((e) => ({ ...e, created_at: at }));
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
 * The events after `after` up to `through` (inclusive; null: all of them), oldest first: of `accounts` only,
 * or of every account when it is null.
 */
export async function eventsBetween(
  db: Kysely<Database>,
  after: number,
  through: number | null,
  accounts: readonly string[] | null,
  limit: number,
): Promise<StoredEvent[]> {
  let query = db.selectFrom('movement_events').select(['seq', 'account', 'document']).where('seq', '>', after);
  if (through !== null) query = query.where('seq', '<=', through);
  if (accounts !== null) query = query.where('account', 'in', accounts);
  const rows = await query.orderBy('seq').limit(limit).execute();
  return rows.map((r) => ({ seq: Number(r.seq), account: r.account, document: r.document }));
}

/**
 * Deletes the events recorded before `before` (ISO time) and raises the pruned mark to the highest of them;
 * returns how many were deleted. Safe from several instances at once (the mark only grows).
 */
export async function pruneEventsBefore(db: Kysely<Database>, before: string): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('movement_events')
      .select((eb) => eb.fn.max('seq').as('m'))
      .where('created_at', '<', before)
      .executeTakeFirst();
    const through = Number(row?.m ?? 0);
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
