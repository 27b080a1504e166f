/** The app refuses to start half-built, and its list queries are index scans on both databases. */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import { handlers } from '../../src/handlers/index.js';
import { openStore } from '../../src/store/store.js';
import { createTestStore, DATABASES, type TestStore } from '../support/databases.js';

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

  const queries = {
    movements: sql`select * from movements where account = 'A' and (created_at, id) < ('2021', 'x') order by created_at desc, id desc limit 101`,
    tradesDesc: sql`select * from trades where address = 'A' and amount_currency_id = 'WAVES' and price_currency_id = 'USDT' and timestamp >= '2021' and timestamp < '2022' and (timestamp, id) < ('2021-06', 'x') order by timestamp desc, id desc limit 1001`,
    tradesAsc: sql`select * from trades where address = 'A' and amount_currency_id = 'WAVES' and price_currency_id = 'USDT' and (timestamp, id) > ('2021-06', 'x') order by timestamp asc, id asc limit 1001`,
    platforms: sql`select id, name from platforms where id > 'B' order by id limit 101`,
  };

  it.each(Object.keys(queries))('%s', async (name) => {
    const query = queries[name as keyof typeof queries];
    if (kind === 'sqlite') {
      const plan = (await sql<{ detail: string }>`explain query plan ${query}`.execute(t.store.db)).rows.map(
        (r) => r.detail,
      );
      // A search of an index, no full scan of the table and no sort of its rows.
      expect(plan.join('\n')).toMatch(
        /SEARCH \w+ USING (COVERING )?INDEX|SEARCH \w+ USING INTEGER PRIMARY KEY|USING PRIMARY KEY/i,
      );
      expect(plan.join('\n')).not.toMatch(/TEMP B-TREE/);
    } else {
      // With sequential and bitmap scans priced out, the plan shows whether an index serves the filter
      // and the order without a sort (what a large table gets; an empty one is costed otherwise).
      await t.store.db.transaction().execute(async (trx) => {
        await sql`set local enable_seqscan = off`.execute(trx);
        await sql`set local enable_bitmapscan = off`.execute(trx);
        const plan = (await sql<{ 'QUERY PLAN': string }>`explain ${query}`.execute(trx)).rows.map(
          (r) => r['QUERY PLAN'],
        );
        expect(plan.join('\n')).toMatch(/Index (Only )?Scan/);
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
      }
      expect(seen).toEqual([]);
    } finally {
      await app.close();
      await store.close();
    }
  });
});
