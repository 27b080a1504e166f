/**
 * Housekeeping's tasks (store/housekeeping.ts) run batch by batch (operator/housekeeper.ts's runTasks), on
 * both stores: events past the retention deleted and the pruned mark raised, newer ones kept; sign-out marks
 * that refuse nothing any more deleted, the others kept; no batch deletes more than its size; a second run
 * finds nothing; the dry run counts without deleting.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoFiles } from '../../src/operator/commands.js';
import { runTasks } from '../../src/operator/housekeeper.js';
import { eventPositions } from '../../src/store/events.js';
import { type HousekeepingTask, housekeepingTasks } from '../../src/store/housekeeping.js';
import { upsertMovements } from '../../src/store/movements.js';
import type { MovementRecord } from '../../src/store/schema.js';
import { createTestStore, DATABASES, type TestStore } from '../support/databases.js';

const demoLine = JSON.parse(readFileSync(demoFiles.movements, 'utf8').split('\n')[0] ?? '{}');
const movement = (account: string, id: string): MovementRecord => ({
  ...demoLine,
  transactions: JSON.stringify(demoLine.transactions),
  id,
  account,
  recipient_address: account,
});
const HOUR = 3_600_000;

describe.each(DATABASES)('housekeeping on %s', (kind) => {
  let t: TestStore;
  const tasks = housekeepingTasks({ eventRetentionHours: 24, accessTokenSeconds: 604_800 });
  const count = async (table: 'movement_events' | 'account_sign_outs') =>
    Number(
      (
        await t.store.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  beforeAll(async () => {
    t = await createTestStore(kind);
  });
  afterAll(() => t.close());

  it('deletes events past the retention in bounded batches, raises the pruned mark, keeps the newer ones', async () => {
    await upsertMovements(
      t.store.db,
      Array.from({ length: 250 }, (_, i) => movement('3PHousekeepingOld', `hk-old-${i}`)),
    );
    // Recorded a day and a half ago (the retention is 24 h); then one recorded now.
    await t.store.db
      .updateTable('movement_events')
      .set({ created_at: new Date(Date.now() - 36 * HOUR).toISOString() })
      .execute();
    const oldEvents = await count('movement_events');
    const { latest } = await eventPositions(t.store.db);
    await upsertMovements(t.store.db, [movement('3PHousekeepingNew', 'hk-new-1')]);
    const now = new Date();
    const events = tasks.find((task) => task.name === 'events') as HousekeepingTask;
    expect(await events.count(t.store.db, now)).toBe(oldEvents);
    const batches: number[] = [];
    const counting: HousekeepingTask = {
      ...events,
      run: async (db, at, batch) => {
        const n = await events.run(db, at, batch);
        batches.push(n);
        return n;
      },
    };
    const report = await runTasks(t.store, [counting], { batch: 100, pauseMs: 0, now: () => now });
    expect(report.deleted.events).toBe(oldEvents);
    expect(Math.max(...batches)).toBeLessThanOrEqual(100);
    expect(batches.length).toBeGreaterThanOrEqual(Math.ceil(oldEvents / 100));
    expect(await count('movement_events')).toBe(1);
    expect((await eventPositions(t.store.db)).pruned).toBe(latest);
    const again = await runTasks(t.store, [events], { batch: 100, pauseMs: 0, now: () => now });
    expect(again.deleted.events).toBe(0);
    expect(await count('movement_events')).toBe(1);
  });

  it('deletes sign-out marks that refuse nothing any more, keeps the others, counts in a dry run first', async () => {
    const now = Date.now();
    const at = (ms: number) => new Date(now + ms).toISOString();
    await t.store.db
      .insertInto('account_sign_outs')
      .values([
        ...Array.from({ length: 120 }, (_, i) => ({
          account: `3PStaleMark${i}`,
          signed_out_through: at(-2 * HOUR - i * 1000),
          updated_at: at(-3 * HOUR),
        })),
        { account: '3PFreshMark', signed_out_through: at(6 * 24 * HOUR), updated_at: at(0) },
        { account: '3PRecentMark', signed_out_through: at(-10 * 60_000), updated_at: at(0) },
      ])
      .execute();
    const marks = tasks.find((task) => task.name === 'sign-outs') as HousekeepingTask;
    expect(await marks.count(t.store.db, new Date(now))).toBe(120);
    expect(await count('account_sign_outs')).toBe(122);
    const report = await runTasks(t.store, [marks], {
      batch: 50,
      pauseMs: 0,
      now: () => new Date(now),
    });
    expect(report.deleted['sign-outs']).toBe(120);
    const left = await t.store.db.selectFrom('account_sign_outs').select('account').orderBy('account').execute();
    expect(left.map((r) => r.account)).toEqual(['3PFreshMark', '3PRecentMark']);
  });
});
