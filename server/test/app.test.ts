/** The app refuses to start half-built, and its list queries are index scans on both databases. */
import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { testConfig } from '../src/config.js';
import { handlers } from '../src/handlers/index.js';
import { movementsPageQuery } from '../src/store/movements.js';
import type { Statement } from '../src/store/schema.js';
import { openStore } from '../src/store/store.js';
import { tradesPageQuery } from '../src/store/trades.js';
import { createTestStore, DATABASES, type TestStore } from './support/databases.js';

describe('startup', () => {
  it('fails at startup, not at request time, when an operation of the spec has no handler', async () => {
    const store = openStore('sqlite::memory:');
    const { listPlatforms: _, ...incomplete } = handlers;
    await expect(
      buildApp(testConfig({ dataDir: '/tmp/gateway-startup' }), { store, handlers: incomplete as never }),
    ).rejects.toThrow(/no handler for operation listPlatforms/);
    await store.close();
  });
});

describe.each(DATABASES)('list queries on %s are keyset scans over an index', (kind) => {
  let t: TestStore;
  beforeAll(async () => {
    t = await createTestStore(kind);
  });
  afterAll(() => t.close());

  // The queries the list handlers run (built by the store), and the catalogue's platforms page.
  const queries: Record<string, (db: TestStore['store']['db']) => Statement> = {
    movements: (db) => movementsPageQuery(db, { account: 'A', limit: 100, after: ['2021-06-01T00:00:00.000Z', 'x'] }),
    tradesDesc: (db) =>
      tradesPageQuery(db, {
        address: 'A',
        amountCurrencyId: 'WAVES',
        priceCurrencyId: 'USDT',
        from: '2021-01-01T00:00:00.000Z',
        before: '2022-01-01T00:00:00.000Z',
        sort: 'desc',
        limit: 1000,
        after: ['2021-06-01T00:00:00.000Z', 'x'],
      }),
    tradesAsc: (db) =>
      tradesPageQuery(db, {
        address: 'A',
        amountCurrencyId: 'WAVES',
        priceCurrencyId: 'USDT',
        from: null,
        before: null,
        sort: 'asc',
        limit: 1000,
        after: ['2021-06-01T00:00:00.000Z', 'x'],
      }),
    platforms: () => CompiledQuery.raw(`select id, name from platforms where id > 'B' order by id limit 101`),
  };
  // Trades pages (up to 1,000 items) are read from the index alone, documents included; movements pages too
  // on SQLite (a PostgreSQL index entry could not hold every movement's document).
  const indexOnly = new Set(['tradesDesc', 'tradesAsc', ...(kind === 'sqlite' ? ['movements'] : [])]);

  it.each(Object.keys(queries))('%s', async (name) => {
    const query = (queries[name] as (typeof queries)[string])(t.store.db);
    const explain = (prefix: string) => CompiledQuery.raw(`${prefix} ${query.sql}`, [...query.parameters]);
    if (kind === 'sqlite') {
      const plan = (await t.store.db.executeQuery<{ detail: string }>(explain('explain query plan'))).rows.map(
        (r) => r.detail,
      );
      // A search of an index, no full scan of the table and no sort of its rows.
      expect(plan.join('\n')).toMatch(
        indexOnly.has(name)
          ? /SEARCH \w+ USING COVERING INDEX/
          : /SEARCH \w+ USING (COVERING )?INDEX|SEARCH \w+ USING INTEGER PRIMARY KEY|USING PRIMARY KEY/i,
      );
      expect(plan.join('\n')).not.toMatch(/TEMP B-TREE/);
    } else {
      // With sequential and bitmap scans priced out, the plan shows whether an index serves the filter
      // and the order without a sort (what a large table gets; an empty one is costed otherwise).
      await t.store.db.transaction().execute(async (trx) => {
        await sql`set local enable_seqscan = off`.execute(trx);
        await sql`set local enable_bitmapscan = off`.execute(trx);
        const plan = (await trx.executeQuery<{ 'QUERY PLAN': string }>(explain('explain'))).rows.map(
          (r) => r['QUERY PLAN'],
        );
        expect(plan.join('\n')).toMatch(indexOnly.has(name) ? /Index Only Scan/ : /Index (Only )?Scan/);
        expect(plan.join('\n'), plan.join('\n')).not.toMatch(/Sort|Seq Scan/);
      });
    }
  });
});

describe('security on every protected operation', () => {
  it('is enforced by the route before the handler runs (the handler map never sees an anonymous call)', async () => {
    const { operationMeta } = await import('@gateway/generated');
    const seen: string[] = [];
    const spying = Object.fromEntries(
      Object.entries(handlers).map(([id, handler]) => [
        id,
        async (request: unknown, context: { caller: unknown }) => {
          if (operationMeta[id as keyof typeof operationMeta].security.length > 0 && context.caller === null)
            seen.push(id);
          return (handler as (r: unknown, c: unknown) => Promise<unknown>)(request, context);
        },
      ]),
    );
    const store = openStore('sqlite::memory:');
    const app = await buildApp(testConfig({ dataDir: '/tmp/gateway-security' }), { store, handlers: spying as never });
    try {
      const paths = {
        listMovements: '/v1/movements?limit=5',
        getMovement: '/v1/movements/abc',
        listEvents: '/v1/events',
        getDepositAddresses: '/v1/deposit/addresses/USDT/ETH',
        getDepositAddressesOnDefaultPlatform: '/v1/deposit/addresses/USDT',
        getWithdrawalAddresses: '/v1/withdraw/addresses/USDT/0x3f2b1c25A5f23b193560B97988ee98cBDb480730/ETH',
        getWithdrawalAddressesOnDefaultPlatform:
          '/v1/withdraw/addresses/USDT/0x3f2b1c25A5f23b193560B97988ee98cBDb480730',
      };
      const protectedIds = Object.entries(operationMeta)
        .filter(([, meta]) => meta.security.length > 0)
        .map(([id]) => id)
        .sort();
      expect(Object.keys(paths).sort()).toEqual(protectedIds);
      for (const url of Object.values(paths)) {
        expect((await app.inject({ url, headers: { authorization: 'Bearer forged.token.x' } })).statusCode).toBe(401);
        const anonymous = await app.inject({ url });
        expect(anonymous.statusCode).toBe(401);
        expect(anonymous.json().errors[0].code).toBe(10000);
      }
      expect(seen).toEqual([]);
    } finally {
      await app.close();
      await store.close();
    }
  });
});
