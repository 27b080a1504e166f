/**
 * What housekeeping deletes, one small batch at a time: each call of a task deletes at most `batch` rows in
 * one short transaction (found by index), so that it never holds the SQLite writer or a PostgreSQL lock for
 * long; the caller (operator/housekeeper.ts, `gateway prune`) loops, yielding between batches, until a call
 * deletes nothing. Every task is idempotent: instances that run one at the same time only repeat work.
 */
import type { Kysely } from 'kysely';
import { pruneEventsBefore } from './events.js';
import type { Database } from './schema.js';
import { pruneSignIns } from './token-housekeeping.js';

export interface HousekeepingSettings {
  /** Events older than this many hours are deleted (a resume from before them gets a `reset`). */
  eventRetentionHours: number;
  /** The longest an access token lives (seconds): a revoked sign-in is remembered at least that long. */
  accessTokenSeconds: number;
}

export interface HousekeepingTask {
  /** The task's name in logs, metrics and `gateway prune`'s report. */
  name: 'events' | 'sign-outs' | 'sign-ins';
  /** Deletes one batch of at most `batch` rows; how many it deleted (0: nothing is left). */
  run(db: Kysely<Database>, now: Date, batch: number): Promise<number>;
  /** How many rows it would delete now, without deleting (`gateway prune --dry-run`); null: not counted. */
  count(db: Kysely<Database>, now: Date): Promise<number | null>;
}

/**
 * A password grant refuses a password signed for an expiry at or before an account's sign-out mark; a mark
 * this far in the past refuses nothing a password's own expiry does not (clocks may disagree by less).
 */
const SIGN_OUT_MARK_MARGIN_MS = 60 * 60_000;

const countOf = async (query: { executeTakeFirst(): Promise<{ n: number | string | bigint } | undefined> }) =>
  Number((await query.executeTakeFirst())?.n ?? 0);

export function housekeepingTasks(settings: HousekeepingSettings): HousekeepingTask[] {
  const eventsBefore = (now: Date) => new Date(now.getTime() - settings.eventRetentionHours * 3_600_000).toISOString();
  const marksBefore = (now: Date) => new Date(now.getTime() - SIGN_OUT_MARK_MARGIN_MS).toISOString();
  return [
    {
      name: 'events',
      run: (db, now, batch) => pruneEventsBefore(db, eventsBefore(now), batch),
      count: (db, now) =>
        countOf(
          db
            .selectFrom('movement_events')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('created_at', '<', eventsBefore(now)),
        ),
    },
    {
      name: 'sign-outs',
      async run(db, now, batch) {
        const result = await db
          .deleteFrom('account_sign_outs')
          .where('account', 'in', (eb) =>
            eb
              .selectFrom('account_sign_outs')
              .select('account')
              .where('signed_out_through', '<', marksBefore(now))
              .limit(batch),
          )
          .where('signed_out_through', '<', marksBefore(now))
          .executeTakeFirst();
        return Number(result.numDeletedRows);
      },
      count: (db, now) =>
        countOf(
          db
            .selectFrom('account_sign_outs')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('signed_out_through', '<', marksBefore(now)),
        ),
    },
    {
      name: 'sign-ins',
      run: (db, now, batch) => pruneSignIns(db, now, { batch, accessTokenSeconds: settings.accessTokenSeconds }),
      count: async () => null,
    },
  ];
}
