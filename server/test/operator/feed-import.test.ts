/**
 * What orders a list does not change once stored, on SQLite and PostgreSQL: a feed record that changes a
 * movement's `created_at` or account, or a trade's `timestamp`, is refused naming its line, and nothing of
 * its batch is written; identical re-imports and other changes (a status) still go through.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { demoFiles, importMovements, importTrades } from '../../src/operator/commands.js';
import { ImportConflict } from '../../src/operator/stream-refusals.js';
import { upsertMovements } from '../../src/store/movements.js';
import { OrderChange } from '../../src/store/pages.js';
import type { MovementRecord } from '../../src/store/schema.js';
import { DATABASES } from '../support/databases.js';
import { importFixture } from '../support/feed-files.js';
import { someoneElse } from '../support/signers.js';

const demoLines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown> & { id: string });
const movements = demoLines(demoFiles.movements);
const trades = demoLines(demoFiles.trades);
const first = movements[0] as (typeof movements)[number];
const firstTrade = trades[0] as (typeof trades)[number];

describe.each(DATABASES)('feed imports keep the order of lists on %s', (kind) => {
  const fixture = importFixture(kind);
  const { feed } = fixture;
  const movement = (id: string) =>
    fixture.t.store.db.selectFrom('movements').selectAll().where('id', '=', id).executeTakeFirst();
  const trade = (id: string) =>
    fixture.t.store.db
      .selectFrom('trades')
      .selectAll()
      .where('address', '=', firstTrade.address as string)
      .where('id', '=', id)
      .executeTakeFirst();

  it('a movement whose created_at changes is refused with its line; nothing of its batch is written', async () => {
    const stored = await movement(first.id);
    const file = feed([
      { ...first, id: 'fresh-before' },
      { ...first, status: 'rejected', created_at: '2031-01-01T00:00:00+01:00' },
      { ...first, id: 'fresh-after' },
    ]);
    const refusal = importMovements(fixture.t.store, file, 'W');
    await expect(refusal).rejects.toBeInstanceOf(ImportConflict);
    await expect(refusal).rejects.toThrow(
      `line 2: movement ${first.id} is stored with created_at ${first.created_at}, not 2030-12-31T23:00:00.000Z, ` +
        'and what orders a list does not change once stored; nothing of lines 1–3 was written',
    );
    expect(await movement('fresh-before')).toBeUndefined();
    expect(await movement('fresh-after')).toBeUndefined();
    expect(await movement(first.id)).toEqual(stored);
  });

  it('a line holding text the database cannot store is refused with its line, before anything is written', async () => {
    const [kept, refused] = [randomUUID(), randomUUID()];
    const file = feed([
      { ...first, id: kept },
      { ...first, id: refused, recipient_address: 'pay\ud800' },
    ]);
    await expect(importMovements(fixture.t.store, file, 'W')).rejects.toThrow(
      'line 2: recipient_address: holds U+0000 or an unpaired surrogate, which no database here can store as text',
    );
    expect(await movement(kept)).toBeUndefined();
  });

  it('a movement moved to another account is refused the same way', async () => {
    const file = feed([
      { ...first, id: 'fresh-1' },
      { ...first, account: someoneElse.address },
    ]);
    await expect(importMovements(fixture.t.store, file, 'W')).rejects.toThrow(
      `line 2: movement ${first.id} is stored with account ${first.account}, not ${someoneElse.address}`,
    );
    expect(await movement('fresh-1')).toBeUndefined();
    expect((await movement(first.id))?.account).toBe(first.account);
  });

  it('an identical re-import is harmless, and a status change goes through (the same instant in another zone)', async () => {
    const before = await movement(first.id);
    expect(await importMovements(fixture.t.store, feed([first]), 'W')).toEqual({ lines: 1, written: 1 });
    expect(await movement(first.id)).toEqual(before);
    const offset = new Date(Date.parse(first.created_at as string) + 2 * 3600_000).toISOString().replace('Z', '+02:00');
    const changed = { ...first, status: 'rejected', created_at: offset, updated_at: '2031-01-01T00:00:00Z' };
    expect(await importMovements(fixture.t.store, feed([changed]), 'W')).toEqual({ lines: 1, written: 1 });
    expect(await movement(first.id)).toMatchObject({
      status: 'rejected',
      created_at: first.created_at,
      updated_at: '2031-01-01T00:00:00.000Z',
    });
    await importMovements(fixture.t.store, feed([first]), 'W');
  });

  it('a batch written again whole (a retried commit whose outcome was unknown) records no second event', async () => {
    const events = async () =>
      Number(
        (
          await fixture.t.store.db
            .selectFrom('movement_events')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const batch = [0, 1, 2].map((i) => ({ ...first, id: randomUUID(), created_at: `2022-03-0${i + 1}T00:00:00.000Z` }));
    const file = feed(batch);
    const before = await events();
    await importMovements(fixture.t.store, file, 'W');
    expect(await events()).toBe(before + 3);
    const stored = await Promise.all(batch.map((m) => movement(m.id)));
    await importMovements(fixture.t.store, file, 'W');
    expect(await events()).toBe(before + 3);
    expect(await Promise.all(batch.map((m) => movement(m.id)))).toEqual(stored);
    // The same batch with one record changed: only that one is an event.
    const [a, b, c] = batch as [object, object, object];
    await importMovements(fixture.t.store, feed([a, { ...b, status: 'rejected' }, c]), 'W');
    expect(await events()).toBe(before + 4);
  });

  it('two lines of one file disagreeing on a new movement are refused whatever the batches', async () => {
    const records = [
      { ...first, id: 'twice', created_at: '2031-01-01T00:00:00Z' },
      { ...first, id: 'other' },
      { ...first, id: 'twice', created_at: '2031-01-02T00:00:00Z' },
    ];
    await expect(importMovements(fixture.t.store, feed(records), 'W')).rejects.toThrow(
      'line 3: movement twice has on line 1 created_at 2031-01-01T00:00:00.000Z, not 2031-01-02T00:00:00.000Z',
    );
    expect(await movement('twice')).toBeUndefined();
    // One record a batch: the first two lines are written, the third is refused against the stored row.
    await expect(importMovements(fixture.t.store, feed(records), 'W', { batchSize: 1 })).rejects.toThrow(
      'line 3: movement twice is stored with created_at 2031-01-01T00:00:00.000Z, not 2031-01-02T00:00:00.000Z, ' +
        'and what orders a list does not change once stored; nothing of lines 3–3 was written (the 2 record(s) before them were)',
    );
    expect((await movement('twice'))?.created_at).toBe('2031-01-01T00:00:00.000Z');
    expect(await movement('other')).toBeDefined();
  });

  it('a trade whose timestamp changes is refused with its line; identical and other re-imports go through', async () => {
    const stored = await trade(firstTrade.id);
    const file = feed([
      { ...firstTrade, id: 'fresh-trade' },
      { ...firstTrade, timestamp: '2031-01-01T00:00:00Z' },
    ]);
    const refusal = importTrades(fixture.t.store, file, 'W');
    await expect(refusal).rejects.toBeInstanceOf(ImportConflict);
    await expect(refusal).rejects.toThrow(
      `line 2: trade ${firstTrade.id} of ${firstTrade.address} is stored with timestamp ${firstTrade.timestamp}, ` +
        'not 2031-01-01T00:00:00.000Z, and what orders a list does not change once stored; nothing of lines 1–2 was written',
    );
    expect(await trade('fresh-trade')).toBeUndefined();
    expect(await trade(firstTrade.id)).toEqual(stored);

    expect(await importTrades(fixture.t.store, feed([firstTrade]), 'W')).toEqual({ lines: 1, written: 1 });
    expect(await trade(firstTrade.id)).toEqual(stored);
    await importTrades(fixture.t.store, feed([{ ...firstTrade, price: '16.5' }]), 'W');
    expect((await trade(firstTrade.id))?.price).toBe('16.5');
    await importTrades(fixture.t.store, feed([firstTrade]), 'W');
  });

  it('re-rendering the stored documents writes the rows back unchanged', async () => {
    const rows = async () => ({
      movements: await fixture.t.store.db.selectFrom('movements').selectAll().orderBy('id').execute(),
      trades: await fixture.t.store.db.selectFrom('trades').selectAll().orderBy('address').orderBy('id').execute(),
    });
    const before = await rows();
    await fixture.t.store.db.updateTable('document_format').set({ format: 'an-older-format' }).execute();
    await fixture.t.store.db.updateTable('movements').set({ document: '' }).execute();
    const count = before.movements.length + before.trades.length;
    expect(await fixture.t.store.migrate()).toEqual([`documents of ${count} rows rendered`]);
    expect(await rows()).toEqual(before);
  });

  it('concurrent imports of one new movement with two created_at: one is stored, the other refused', async () => {
    // Another instance on PostgreSQL. On SQLite one process has one writer (a second connection's busy wait
    // would block the event loop of the first): the same store, whose transactions take turns.
    const other = kind === 'postgres' ? fixture.t.reopen() : fixture.t.store;
    const record = (i: number, hour: number): MovementRecord => ({
      id: `race-${i}`,
      account: first.account as string,
      direction: 'deposit',
      status: 'confirmed',
      source_platform_id: 'BTC',
      destination_platform_id: 'WAVES',
      currency_id: 'BTC',
      amount: '1',
      fee: '0',
      created_at: new Date(Date.UTC(2031, 0, 1, hour)).toISOString(),
      updated_at: '2031-01-01T00:00:00.000Z',
      recipient_address: first.account as string,
      transactions: '[]',
    });
    for (let i = 0; i < 10; i++) {
      const outcomes = await Promise.allSettled([
        upsertMovements(fixture.t.store.db, [record(i, 1)]),
        upsertMovements(other.db, [record(i, 2)]),
      ]);
      const refused = outcomes.filter((o) => o.status === 'rejected');
      expect(refused).toHaveLength(1);
      expect((refused[0] as PromiseRejectedResult).reason).toBeInstanceOf(OrderChange);
      const kept = outcomes[0]?.status === 'fulfilled' ? 1 : 2;
      expect((await movement(`race-${i}`))?.created_at).toBe(record(i, kept).created_at);
    }
  });

  it('the largest batch (5,000 records) is written in one transaction, whatever the bound-parameter limits', async () => {
    const records = Array.from({ length: 5000 }, (_, i) => ({ ...first, id: `bulk-${String(i).padStart(4, '0')}` }));
    expect(await importMovements(fixture.t.store, feed(records), 'W', { batchSize: 5000 })).toEqual({
      lines: 5000,
      written: 5000,
    });
    const bulk = await fixture.t.store.db
      .selectFrom('movements')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('id', 'like', 'bulk-%')
      .executeTakeFirstOrThrow();
    expect(Number(bulk.n)).toBe(5000);
    const tradeRecords = Array.from({ length: 5000 }, (_, i) => ({ ...firstTrade, id: `bulk-${i}` }));
    expect(await importTrades(fixture.t.store, feed(tradeRecords), 'W', { batchSize: 5000 })).toEqual({
      lines: 5000,
      written: 5000,
    });
  });
});
