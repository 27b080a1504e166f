/**
 * Pagination properties over generated data, on SQLite and PostgreSQL: walking the pages gives every item
 * exactly once, in order, with `has_next_page` true exactly when more exist, also when many items share a
 * timestamp and when new items arrive between pages.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTrade } from '../../src/domain/feeds.js';
import { demoFiles, importMovements } from '../../src/operator/commands.js';
import { upsertMovements } from '../../src/store/movements.js';
import type { MovementRecord, TradeRecord } from '../../src/store/schema.js';
import { upsertTrades } from '../../src/store/trades.js';
import { signIn, type TestApp, testApp } from '../support/app.js';
import { DATABASES } from '../support/databases.js';
import { DEMO_SEED, ledgerUser } from '../support/signers.js';

const ME = ledgerUser(DEMO_SEED);
const OTHER = '3PQ4nHEVPtvd4TDP77H7BSdDddyxLs9gQ67';
const base = Date.parse('2022-01-01T00:00:00.000Z');

let seed = 42;
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};

function makeTrades(count: number, address: string, offset = 0): TradeRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    address,
    id: `T${String(offset + i).padStart(6, '0')}${Math.floor(random() * 1e6)}`,
    amount_currency_id: 'WAVES',
    price_currency_id: 'USDT',
    type: random() < 0.5 ? 'buy' : 'sell',
    // Few distinct timestamps: many trades share one.
    timestamp: new Date(base + Math.floor(random() * 40) * 1000).toISOString(),
    amount: '1.5',
    price: '15.25',
  }));
}

function makeMovements(count: number, account: string, offset = 0): MovementRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `m-${String(offset + i).padStart(5, '0')}-${Math.floor(random() * 1e6)}`,
    account,
    direction: 'deposit',
    status: 'confirmed',
    source_platform_id: 'ETH',
    destination_platform_id: 'WAVES',
    currency_id: 'USDT',
    amount: '10',
    fee: '0',
    created_at: new Date(base + Math.floor(random() * 25) * 60_000).toISOString(),
    updated_at: new Date(base).toISOString(),
    recipient_address: account,
    transactions: '[]',
  }));
}

interface Page {
  items: { id: string }[];
  page_info: { has_next_page: boolean; last_cursor: string | null };
}

async function walk(app: FastifyInstance, url: (after: string | null) => string, headers: Record<string, string> = {}) {
  const ids: string[] = [];
  const pages: { hasNext: boolean; count: number }[] = [];
  let after: string | null = null;
  for (let guard = 0; guard < 1000; guard++) {
    const response = await app.inject({ url: url(after), headers });
    expect(response.statusCode, response.body).toBe(200);
    const body: Page = response.json();
    ids.push(...body.items.map((item) => item.id));
    pages.push({ hasNext: body.page_info.has_next_page, count: body.items.length });
    expect(body.page_info.last_cursor === null).toBe(!body.page_info.has_next_page);
    after = body.page_info.last_cursor;
    if (!after) return { ids, pages };
  }
  throw new Error('pagination did not end');
}

describe.each(DATABASES)('pagination on %s', (kind) => {
  let t: TestApp;
  let token: string;
  const trades = makeTrades(237, ME.address);
  const movements = makeMovements(163, ME.address);

  beforeAll(async () => {
    t = await testApp(kind, { demo: true });
    await t.store.db.deleteFrom('trades').execute();
    await t.store.db.deleteFrom('movements').execute();
    await upsertTrades(t.store.db, [...trades, ...makeTrades(50, OTHER, 1000)]);
    await upsertMovements(t.store.db, [...movements, ...makeMovements(40, OTHER, 1000)]);
    token = (await signIn(t.app, ME)).access_token;
  });
  afterAll(() => t.close());

  const tradesUrl = (query: string) => (after: string | null) =>
    `/v1/addresses/${ME.address}/trades/WAVES/USDT?${query}${after ? `&after=${after}` : ''}`;
  const sortKey = (r: { timestamp: string; id: string }) => `${r.timestamp}|${r.id}`;

  it.each([1, 7, 50, 237, 1000])('trades, desc, %i a page: each trade once, in order', async (limit) => {
    const { ids, pages } = await walk(t.app, tradesUrl(`limit=${limit}`));
    const expected = [...trades].sort((a, b) => sortKey(b).localeCompare(sortKey(a))).map((r) => r.id);
    expect(ids).toEqual(expected);
    expect(pages.slice(0, -1).every((p) => p.hasNext && p.count === limit)).toBe(true);
    expect(pages.at(-1)?.hasNext).toBe(false);
  });

  it('trades, asc, in a time range', async () => {
    const from = new Date(base + 10_000).toISOString();
    const before = new Date(base + 30_000).toISOString();
    const { ids } = await walk(
      t.app,
      tradesUrl(
        `limit=9&sort=asc&timestamp__gte=${from}&timestamp__lt=${encodeURIComponent(before.replace('Z', '+00:00'))}`,
      ),
    );
    const expected = trades
      .filter((r) => r.timestamp >= from && r.timestamp < before)
      .sort((a, b) => sortKey(a).localeCompare(sortKey(b)))
      .map((r) => r.id);
    expect(expected.length).toBeGreaterThan(20);
    expect(ids).toEqual(expected);
  });

  it('trades arriving between pages: the existing ones are neither skipped nor repeated', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    let inserted = 0;
    do {
      const response = await t.app.inject({ url: tradesUrl('limit=20')(after) });
      const body: Page = response.json();
      seen.push(...body.items.map((i) => i.id));
      after = body.page_info.last_cursor;
      // A new trade at a random existing timestamp, and one at the newest time.
      const extra = makeTrades(2, ME.address, 5000 + inserted);
      inserted += 2;
      await upsertTrades(t.store.db, extra);
    } while (after);
    const before = new Set(trades.map((r) => r.id));
    const seenBefore = seen.filter((id) => before.has(id));
    expect(new Set(seen).size).toBe(seen.length);
    expect(seenBefore.length).toBe(before.size);
    await t.store.db.deleteFrom('trades').where('id', '>=', 'T005000').where('id', '<', 'T006000').execute();
  });

  it('a cursor is bound to its filter: reusing it with another sort is refused', async () => {
    const first = (await t.app.inject({ url: tradesUrl('limit=5')(null) })).json();
    const response = await t.app.inject({
      url: `${tradesUrl('limit=5&sort=asc')(null)}&after=${first.page_info.last_cursor}`,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().errors[0].code).toBe(10206);
  });

  it.each([1, 10, 100])("movements, %i a page: the account's own, newest first, each once", async (limit) => {
    const { ids } = await walk(t.app, (after) => `/v1/movements?limit=${limit}${after ? `&after=${after}` : ''}`, {
      authorization: `Bearer ${token}`,
    });
    const expected = [...movements]
      .sort((a, b) => `${b.created_at}|${b.id}`.localeCompare(`${a.created_at}|${a.id}`))
      .map((m) => m.id);
    expect(ids).toEqual(expected);
  });

  it.each([1, 2, 3, 100])('platforms, %i a page', async (limit) => {
    const { ids } = await walk(t.app, (after) => `/v1/platforms?limit=${limit}${after ? `&after=${after}` : ''}`);
    expect(ids).toEqual(['BSC', 'BTC', 'ETH', 'WAVES']);
  });

  it.each([1, 3, 4, 100])('deposit and withdrawal currency lists, %i a page by offset', async (limit) => {
    for (const list of ['deposit', 'withdraw']) {
      const seen: string[] = [];
      for (let offset = 0; ; offset += limit) {
        const body = (await t.app.inject({ url: `/v1/${list}/currencies?limit=${limit}&offset=${offset}` })).json();
        seen.push(...body.items.map((i: { id: string; platform_id: string }) => `${i.id}/${i.platform_id}`));
        const total = 9;
        expect(body.page_info.has_next_page).toBe(offset + limit < total);
        if (!body.page_info.has_next_page) break;
      }
      expect(seen).toEqual([
        'BNB/BSC',
        'BTC/BTC',
        'ETH/ETH',
        'USDC/ETH',
        'USDT/BSC',
        'USDT/ETH',
        'USDT/WAVES',
        'WAVES/ETH',
        'WAVES/WAVES',
      ]);
    }
  });

  it('a pair named by ledger asset ids (44 base58 characters) is a pair like any other', async () => {
    const [btc, usdt] = [
      '8LQW8f7P5d5PZM7GtZEBgaqRPGSzS3DfPuiXrURJ4AJS',
      '34N9YcEETLWn93qYQ64EsP1x89tSruJU44RrEMSXXEPJ',
    ];
    const line = JSON.stringify({
      id: 'E4dTtiN8GaiCJUY4WK8nFdCdiM5UdbX4jLKw1i3vCWWL',
      address: ME.address,
      amount_currency_id: btc,
      price_currency_id: usdt,
      type: 'buy',
      timestamp: '2021-08-03T11:25:00.156Z',
      amount: '0.01',
      price: '39000',
    });
    const parsed = parseTrade(line, 'W');
    expect(parsed).toMatchObject({ ok: true });
    if (!parsed.ok) return;
    await upsertTrades(t.store.db, [parsed.row]);
    const response = await t.app.inject({ url: `/v1/addresses/${ME.address}/trades/${btc}/${usdt}` });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().items.map((i: { id: string }) => i.id)).toEqual([
      'E4dTtiN8GaiCJUY4WK8nFdCdiM5UdbX4jLKw1i3vCWWL',
    ]);
    // Nothing else long passes: 45 characters, or characters outside base58 (0, O, I, l).
    for (const bad of [`${btc}J`, `0${btc.slice(1)}`, `${btc.slice(0, -1)}l`, `${btc.slice(0, 20)}-${btc.slice(21)}`]) {
      const refused = await t.app.inject({ url: `/v1/addresses/${ME.address}/trades/${bad}/${usdt}` });
      expect(refused.statusCode, bad).toBe(400);
      expect(refused.json().errors[0].code).toBe(10201);
    }
  });

  it('an offset past the end gives an empty last page', async () => {
    const body = (await t.app.inject({ url: '/v1/deposit/currencies?offset=500' })).json();
    expect(body).toEqual({ type: 'list', page_info: { has_next_page: false }, items: [] });
  });
});

describe.each(DATABASES)('a feed re-import during a walk on %s', (kind) => {
  let t: TestApp;
  let dir: string;
  beforeAll(async () => {
    t = await testApp(kind, { demo: true });
    dir = mkdtempSync(path.join(tmpdir(), 'gateway-feed-'));
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a movement further down re-imported with a newer created_at: every movement is seen once', async () => {
    const authorization = `Bearer ${(await signIn(t.app, ME)).access_token}`;
    const demo = readFileSync(demoFiles.movements, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { id: string; account: string; created_at: string });
    const mine = demo.filter((m) => m.account === ME.address);
    expect(mine).toHaveLength(50);
    const newestFirst = [...mine].sort((a, b) => `${b.created_at}|${b.id}`.localeCompare(`${a.created_at}|${a.id}`));
    const moved = newestFirst[40] as (typeof mine)[number];
    const feed = path.join(dir, 'moved.ndjson');
    writeFileSync(feed, `${JSON.stringify({ ...moved, created_at: '2031-01-01T00:00:00.000Z' })}\n`);

    const seen: string[] = [];
    let after: string | null = null;
    let outcome: unknown;
    do {
      const response = await t.app.inject({
        url: `/v1/movements?limit=5${after ? `&after=${after}` : ''}`,
        headers: { authorization },
      });
      expect(response.statusCode, response.body).toBe(200);
      const body: Page = response.json();
      seen.push(...body.items.map((item) => item.id));
      after = body.page_info.last_cursor;
      if (seen.length === 5) outcome = await importMovements(t.store, feed, 'W').catch((error: unknown) => error);
    } while (after);

    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBe(50);
    expect(outcome).toBeInstanceOf(Error);
    expect(String(outcome)).toMatch(/line 1: movement .* created_at/);
  });
});
