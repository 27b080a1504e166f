/**
 * The store's own state: its migrations, read from its own schema. On PostgreSQL, list pages are read with
 * named prepared statements: each page query is parsed and planned once per connection, then only bound and
 * executed (store/statements.ts `statementNames`).
 */
import { operationMeta } from '@gateway/generated';
import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listMovements, upsertMovements } from '../../src/store/movements.js';
import type { MovementRecord } from '../../src/store/schema.js';
import { statementNames } from '../../src/store/statements.js';
import { listTrades } from '../../src/store/trades.js';
import { createTestStore, DATABASES, type TestStore } from '../support/databases.js';

/** How the store names a prepared statement: after a hash of its text. */
const STATEMENT_NAME = /^gateway_[0-9a-f]{32}$/;

const PAGE_BYTES = operationMeta.listMovements.pageBytes;
const movementOf = (i: number): MovementRecord => ({
  id: `prepared-${String(i).padStart(2, '0')}`,
  account: 'prepared-account',
  direction: 'deposit',
  status: 'confirmed',
  source_platform_id: 'ETH',
  destination_platform_id: 'WAVES',
  currency_id: 'USDT',
  amount: `${i}.5`,
  fee: '0',
  created_at: new Date(Date.UTC(2024, 0, 1, 0, i)).toISOString(),
  updated_at: new Date(Date.UTC(2024, 0, 1, 0, i)).toISOString(),
  recipient_address: 'recipient',
  transactions: '[]',
});

describe.each(DATABASES)('migration state on %s', (kind) => {
  it('is the store’s own: none applied before migrate, all after (a migrated neighbour schema aside)', async () => {
    // On PostgreSQL the migrator finds its tables by name in any schema: a neighbour's must not count.
    const neighbour = await createTestStore(kind);
    const t = await createTestStore(kind, { migrate: false });
    try {
      const before = await t.store.migrationState();
      expect(before.applied).toEqual([]);
      expect(before.pending).toContain('0001_catalogue_and_feeds');
      await t.store.migrate();
      const after = await t.store.migrationState();
      expect(after).toEqual({ applied: before.pending, pending: [], ahead: [], problem: null });
    } finally {
      await Promise.all([t.close(), neighbour.close()]);
    }
  });
});

describe('page reads on PostgreSQL', () => {
  let t: TestStore;
  // One connection, so that the statements it has prepared can be listed.
  beforeAll(async () => {
    t = await createTestStore('postgres', { poolSize: 1 });
    await upsertMovements(
      t.store.db,
      Array.from({ length: 7 }, (_, i) => movementOf(i)),
    );
  });
  afterAll(() => t.close());

  const prepared = async () =>
    (
      await sql<{
        name: string;
        statement: string;
      }>`select name, statement from pg_prepared_statements order by name`.execute(t.store.db)
    ).rows;

  it('prepares a page query once and reuses it, with the same answers', async () => {
    const query = { account: 'prepared-account', limit: 3, maxBytes: PAGE_BYTES, after: null };
    const first = await listMovements(t.store, query);
    const statements = await prepared();
    expect(statements).toHaveLength(1);
    expect(statements[0]?.name).toMatch(STATEMENT_NAME);
    expect(statements[0]?.statement).toMatch(/from "movements"/);

    // The same shape with other values, and the next page (another shape): one more statement, not two.
    const again = await listMovements(t.store, query);
    expect(again).toEqual(first);
    const next = await listMovements(t.store, { ...query, after: first.last ?? null });
    expect(next.documents.map((d) => JSON.parse(d).id)).toEqual(['prepared-03', 'prepared-02', 'prepared-01']);
    const other = await listMovements(t.store, { ...query, after: next.last ?? null });
    expect(other.documents.map((d) => JSON.parse(d).id)).toEqual(['prepared-00']);
    expect(await prepared()).toHaveLength(2);

    await listTrades(t.store, {
      address: 'nobody',
      amountCurrencyId: 'WAVES',
      priceCurrencyId: 'USDT',
      from: null,
      before: null,
      sort: 'asc',
      limit: 10,
      maxBytes: PAGE_BYTES,
      after: null,
    });
    expect(await prepared()).toHaveLength(3);
  });

  it('names a bounded number of texts, each after its text (the same in every instance); the rest run unnamed and still answer', async () => {
    const name = statementNames(2);
    const [a, b, a2, c, b2] = [name('a'), name('b'), name('a'), name('c'), name('b')];
    expect(a).toMatch(STATEMENT_NAME);
    expect(b).toMatch(STATEMENT_NAME);
    expect([a2, c, b2]).toEqual([a, undefined, b]);
    expect(a).not.toBe(b);
    // Another instance (another store's names), texts met in another order: the same names.
    const other = statementNames(2);
    expect([other('b'), other('a')]).toEqual([b, a]);
    // Through the store: more distinct texts than it names (100) all answer.
    const before = (await prepared()).length;
    for (let i = 0; i < 105; i++) {
      expect(await t.store.firstColumn(CompiledQuery.raw(`select $1::int + ${i}`, [1]))).toEqual([1 + i]);
    }
    expect((await prepared()).length).toBe(100);
    expect(before).toBeLessThan(100);
  });
});
