/**
 * The events' ids are each account's own (store/events.ts, migration 0009): 1, 2, 3… in the order of the
 * account's events, whatever other accounts' imports do, without gaps (a refused batch takes its ids back)
 * and without duplicates under concurrent writers; across the upgrade, accounts that may hold a server-wide
 * id go on from the server's count, and what the previous release still writes is numbered by a trigger.
 */
import { type Kysely, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { accountEventsAfter, accountPosition } from '../../src/store/events.js';
import { SERVER_COUNT_FLOOR } from '../../src/store/migrations/0009-account-event-ids.js';
import { upsertMovements } from '../../src/store/movements.js';
import { isPostgres } from '../../src/store/rows.js';
import type { Database, MovementRecord } from '../../src/store/schema.js';
import { createTestStore, DATABASES } from '../support/databases.js';
import { migrationBefore, stepwise } from '../support/migrations.js';

/** The last migration of the release before each account's event ids: its schema, and what it writes. */
const PREVIOUS_RELEASE = migrationBefore('0009_account_event_ids');

const movement = (account: string, id: string, status: MovementRecord['status'] = 'confirmed'): MovementRecord => ({
  id,
  account,
  direction: 'deposit',
  status,
  source_platform_id: 'ETH',
  destination_platform_id: 'WAVES',
  currency_id: 'USDT',
  amount: '1.5',
  fee: '0',
  created_at: '2024-01-01T00:00:00.000Z',
  updated_at: '2024-01-01T00:00:00.000Z',
  recipient_address: account,
  transactions: '[]',
});

/** Each stored event of `account`: its server-wide seq and its id, by seq. */
async function eventsOf(db: Kysely<Database>, account: string): Promise<{ seq: number; id: number | null }[]> {
  const rows = await db
    .selectFrom('movement_events')
    .select(['seq', 'account_seq'])
    .where('account', '=', account)
    .orderBy('seq')
    .execute();
  return rows.map((r) => ({ seq: Number(r.seq), id: r.account_seq === null ? null : Number(r.account_seq) }));
}

const oneTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

/** An event as the release before 0009 recorded it: no id of its account (its lock taken on PostgreSQL). */
async function recordAsPreviousRelease(db: Kysely<unknown>, account: string, movementId: string): Promise<number> {
  return db.transaction().execute(async (trx) => {
    if (isPostgres(db)) {
      await sql`select pg_advisory_xact_lock(hashtext('movement_events_' || current_schema()))`.execute(trx);
    }
    const { rows } = await sql<{ seq: number | string }>`
      insert into movement_events (account, movement_id, document, created_at)
      values (${account}, ${movementId}, '{}', ${new Date().toISOString()}) returning seq`.execute(trx);
    return Number(rows[0]?.seq);
  });
}

describe.each(DATABASES)('account event ids on %s', (kind) => {
  it('start at 1 for each account and go up by one per event, however many events other accounts get', async () => {
    const t = await createTestStore(kind);
    try {
      const { db } = t.store;
      expect(await accountPosition(db, 'acct-a')).toEqual({ last: 0, legacyThrough: 0 });
      await upsertMovements(db, [movement('acct-b', 'b-1'), movement('acct-b', 'b-2')]);
      await upsertMovements(db, [movement('acct-a', 'a-1')]);
      // Interleaved in one batch, and many of another account's between.
      await upsertMovements(
        db,
        Array.from({ length: 300 }, (_, i) => movement(i % 3 === 0 ? 'acct-a' : 'acct-b', `mix-${i}`)),
      );
      await upsertMovements(db, [movement('acct-a', 'a-1', 'rejected')]);
      const a = await eventsOf(db, 'acct-a');
      const b = await eventsOf(db, 'acct-b');
      expect(a.map((e) => e.id)).toEqual(oneTo(102));
      expect(b.map((e) => e.id)).toEqual(oneTo(202));
      expect(await accountPosition(db, 'acct-a')).toEqual({ last: 102, legacyThrough: 0 });
      // The server-wide count is above every id: it is no account's business.
      expect(Math.min(...a.map((e) => e.seq))).toBeGreaterThan(SERVER_COUNT_FLOOR);
      const after = await accountEventsAfter(db, 'acct-a', 100, 10);
      expect(after.map((e) => e.id)).toEqual([101, 102]);
      expect(after.every((e) => e.account === 'acct-a')).toBe(true);
    } finally {
      await t.close();
    }
  });

  it('a refused batch takes its ids back: the next event has the next id', async () => {
    const t = await createTestStore(kind);
    try {
      const { db } = t.store;
      await upsertMovements(db, [movement('acct-r', 'r-1')]);
      await expect(
        upsertMovements(db, [
          movement('acct-r', 'r-2'),
          { ...movement('acct-r', 'r-1'), created_at: '2031-01-01T00:00:00.000Z' },
        ]),
      ).rejects.toThrow();
      await upsertMovements(db, [movement('acct-r', 'r-3')]);
      expect((await eventsOf(db, 'acct-r')).map((e) => e.id)).toEqual([1, 2]);
    } finally {
      await t.close();
    }
  });

  // PostgreSQL only: SQLite's writers (processes) take its one write lock at their first write, so they never
  // interleave (and several connections of one thread would wait on each other for ever): declared only there.
  if (kind === 'postgres')
    it('concurrent writers (other connections, as other instances’) give every account 1…n, in seq order', async () => {
      const t = await createTestStore(kind);
      const writers = [t.store, t.reopen(), t.reopen(), t.reopen()];
      try {
        const accounts = ['acct-c0', 'acct-c1', 'acct-c2'];
        await Promise.all(
          writers.map(async (store, w) => {
            for (let round = 0; round < 10; round++) {
              const batch = Array.from({ length: 7 }, (_, i) =>
                movement(accounts[(w + round + i) % accounts.length] as string, `c-${w}-${round}-${i}`),
              );
              await upsertMovements(store.db, batch);
            }
          }),
        );
        let total = 0;
        for (const account of accounts) {
          const events = await eventsOf(t.store.db, account);
          total += events.length;
          // In seq order (the readers' order) the ids are 1…n: none missing, none twice, none out of order.
          expect(events.map((e) => e.id)).toEqual(oneTo(events.length));
          expect((await accountPosition(t.store.db, account)).last).toBe(events.length);
        }
        expect(total).toBe(4 * 10 * 7);
      } finally {
        await t.close();
      }
    }, 60_000);

  it('across the upgrade: accounts that may hold a server-wide id go on from its count; the previous release’s events are numbered', async () => {
    const t = await createTestStore(kind, { migrate: false });
    try {
      const { db: untyped, migrateTo } = await stepwise(t);
      await migrateTo(PREVIOUS_RELEASE);
      // The release before: one count for the server.
      for (let i = 0; i < 5; i++) await recordAsPreviousRelease(untyped, i % 2 ? 'old-a' : 'old-b', `old-${i}`);
      await sql`insert into token_families (id, account, created_at) values ('f1', 'old-signed-in', ${new Date().toISOString()})`.execute(
        untyped,
      );
      await t.store.migrate();
      const { db } = t.store;
      for (const account of ['old-a', 'old-b', 'old-signed-in']) {
        expect(await accountPosition(db, account), account).toEqual({ last: 5, legacyThrough: 5 });
      }
      expect(await accountPosition(db, 'new-account')).toEqual({ last: 0, legacyThrough: 0 });
      // Old events keep their place but get no id of their account: a resume from below 5 is a reset.
      expect((await eventsOf(db, 'old-a')).map((e) => e.id)).toEqual([null, null]);
      // The new code and the previous release (still running during a rolling upgrade) number alike.
      await upsertMovements(db, [movement('old-a', 'new-1'), movement('new-account', 'new-2')]);
      const bySeq = await recordAsPreviousRelease(untyped, 'old-a', 'prev-1');
      await recordAsPreviousRelease(untyped, 'new-account', 'prev-2');
      await upsertMovements(db, [movement('old-a', 'new-3')]);
      expect((await eventsOf(db, 'old-a')).map((e) => e.id)).toEqual([null, null, 6, 7, 8]);
      expect((await eventsOf(db, 'new-account')).map((e) => e.id)).toEqual([1, 2]);
      // What the previous release hands out after the upgrade (seq, its positions) is above every account's id.
      expect(bySeq).toBeGreaterThan(SERVER_COUNT_FLOOR);
      const { pruned_through } = await db
        .selectFrom('event_retention')
        .select('pruned_through')
        .executeTakeFirstOrThrow();
      expect(Number(pruned_through)).toBe(SERVER_COUNT_FLOOR);
    } finally {
      await t.close();
    }
  }, 60_000);
});
