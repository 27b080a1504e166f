/**
 * Stored documents (store/documents.ts), on SQLite and PostgreSQL: pages and single movements served from
 * them are exactly what rendering the rows gives, a re-import that changes a row changes what is served,
 * and documents rendered in another format (or never) are rendered again by the migration step.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCUMENT_FORMAT, movement, movementDocument, trade, tradeDocument } from '../../src/store/documents.js';
import { upsertMovements } from '../../src/store/movements.js';
import type { MovementRecord, TradeRecord } from '../../src/store/schema.js';
import { upsertTrades } from '../../src/store/trades.js';
import { signIn, type TestApp, testApp } from '../support/app.js';
import { createTestStore, DATABASES } from '../support/databases.js';
import { MIGRATION_NAMES, migrationBefore, stepwise } from '../support/migrations.js';
import { DEMO_SEED, ledgerUser } from '../support/signers.js';

const ME = ledgerUser(DEMO_SEED);

const movementOf = (i: number, changes: Partial<MovementRecord> = {}): MovementRecord => ({
  id: `doc-movement-${i}`,
  account: ME.address,
  direction: i % 2 === 0 ? 'deposit' : 'withdrawal',
  status: i % 3 === 0 ? 'pending_approval' : 'confirmed',
  source_platform_id: i % 2 === 0 ? 'ETH' : 'WAVES',
  destination_platform_id: i % 2 === 0 ? 'WAVES' : 'ETH',
  currency_id: 'USDT',
  // Amounts whose shortest number form differs from the stored text, and the largest precision kept.
  amount: ['0.00000001', '123456789012345678901234567890', '0.123456789012345678', '12.5'][i % 4] as string,
  fee: i % 2 === 0 ? '0' : '1.25',
  created_at: new Date(Date.UTC(2023, 0, 1, 0, i)).toISOString(),
  updated_at: new Date(Date.UTC(2023, 0, 2, 0, i)).toISOString(),
  // Text that JSON must escape (in a field the spec leaves free: a transaction id has a pattern).
  recipient_address: i % 2 === 0 ? ME.address : `0x"quoted"\\back\u2028slash-é-${i}`,
  transactions: JSON.stringify([{ transaction_id: `0xtx-${i}`, platform_id: 'ETH' }]),
  ...changes,
});

const tradeOf = (i: number): TradeRecord => ({
  address: ME.address,
  id: `doc-trade-${String(i).padStart(3, '0')}`,
  amount_currency_id: 'WAVES',
  price_currency_id: 'USDT',
  type: i % 2 === 0 ? 'buy' : 'sell',
  timestamp: new Date(Date.UTC(2023, 0, 1, 0, 0, i)).toISOString(),
  amount: ['0.00000001', '7', '0.123456789012345678'][i % 3] as string,
  price: '41000.5',
});

describe.each(DATABASES)('documents on %s', (kind) => {
  let t: TestApp;
  let headers: Record<string, string>;
  const movements = Array.from({ length: 12 }, (_, i) => movementOf(i));
  const trades = Array.from({ length: 30 }, (_, i) => tradeOf(i));
  const newestFirst = (rows: MovementRecord[]) =>
    [...rows].sort((a, b) => `${b.created_at}|${b.id}`.localeCompare(`${a.created_at}|${a.id}`));

  beforeAll(async () => {
    t = await testApp(kind, { demo: true });
    await t.store.db.deleteFrom('movements').execute();
    await t.store.db.deleteFrom('trades').execute();
    await upsertMovements(t.store.db, movements);
    await upsertTrades(t.store.db, trades);
    headers = { authorization: `Bearer ${(await signIn(t.app, ME)).access_token}` };
  });
  afterAll(() => t.close());

  const page = async (url: string) => {
    const response = await t.app.inject({ url, headers });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    return response;
  };

  it('a movements page is the rendering of its rows, in order, with a working cursor', async () => {
    const first = (await page('/v1/movements?limit=5')).json();
    expect(first.type).toBe('list');
    expect(first.items).toEqual(newestFirst(movements).slice(0, 5).map(movement));
    expect(first.page_info.has_next_page).toBe(true);
    const second = (await page(`/v1/movements?limit=5&after=${first.page_info.last_cursor}`)).json();
    expect(second.items).toEqual(newestFirst(movements).slice(5, 10).map(movement));
  });

  it('a movement is the rendering of its row', async () => {
    for (const row of movements.slice(0, 4)) {
      const response = await page(`/v1/movements/${row.id}`);
      expect(response.json()).toEqual(movement(row));
      expect(response.body).toBe(JSON.stringify(movement(row)));
    }
  });

  it('a trades page is the rendering of its rows, byte for byte', async () => {
    const response = await page(`/v1/addresses/${ME.address}/trades/WAVES/USDT?limit=1000&sort=asc`);
    const body = response.json();
    expect(response.body).toBe(JSON.stringify({ type: 'list', page_info: body.page_info, items: trades.map(trade) }));
    expect(body.page_info).toEqual({ has_next_page: false, last_cursor: null });
  });

  it('an empty page is a list with no items', async () => {
    const response = await page(`/v1/addresses/${ME.address}/trades/WAVES/BTC`);
    expect(response.json()).toEqual({
      type: 'list',
      page_info: { has_next_page: false, last_cursor: null },
      items: [],
    });
  });

  it('a re-import that changes a movement changes what is served', async () => {
    const changed = movementOf(3, { status: 'confirmed', updated_at: '2023-02-01T00:00:00.000Z' });
    await upsertMovements(t.store.db, [changed]);
    expect((await page(`/v1/movements/${changed.id}`)).json()).toEqual(movement(changed));
    const listed = (await page('/v1/movements?limit=100')).json().items;
    expect(listed.find((item: { id: string }) => item.id === changed.id)).toEqual(movement(changed));
    await upsertMovements(t.store.db, [movementOf(3)]);
  });

  it('documents of another format, or none, are rendered again by the migration step, once', async () => {
    await t.store.db.updateTable('movements').set({ document: '' }).execute();
    await t.store.db.updateTable('trades').set({ document: '{"stale":true}' }).execute();
    await t.store.db.updateTable('document_format').set({ format: 'an-older-format' }).execute();

    expect(await t.store.migrate()).toEqual([`documents of ${movements.length + trades.length} rows rendered`]);
    const format = await sql<{ format: string }>`select format from document_format`.execute(t.store.db);
    expect(format.rows).toEqual([{ format: DOCUMENT_FORMAT }]);
    expect((await page('/v1/movements?limit=100')).json().items).toEqual(newestFirst(movements).map(movement));
    const tradesPage = (await page(`/v1/addresses/${ME.address}/trades/WAVES/USDT?limit=1000&sort=asc`)).json();
    expect(tradesPage.items).toEqual(trades.map(trade));

    expect(await t.store.migrate()).toEqual([]);
  });
});

describe.each(DATABASES)('upgrading a %s store that holds rows from before documents', (kind) => {
  it('adds the documents and renders every existing row', async () => {
    const t = await createTestStore(kind, { migrate: false });
    try {
      const { db, migrateTo } = await stepwise(t);
      await migrateTo(migrationBefore('0004_feed_documents'));
      const row = movementOf(1);
      const deal = tradeOf(1);
      await sql`insert into movements (id, account, direction, status, source_platform_id, destination_platform_id,
        currency_id, amount, fee, created_at, updated_at, recipient_address, transactions)
        values (${row.id}, ${row.account}, ${row.direction}, ${row.status}, ${row.source_platform_id},
        ${row.destination_platform_id}, ${row.currency_id}, ${row.amount}, ${row.fee}, ${row.created_at},
        ${row.updated_at}, ${row.recipient_address}, ${row.transactions})`.execute(db);
      await sql`insert into trades (address, id, amount_currency_id, price_currency_id, type, timestamp, amount, price)
        values (${deal.address}, ${deal.id}, ${deal.amount_currency_id}, ${deal.price_currency_id}, ${deal.type},
        ${deal.timestamp}, ${deal.amount}, ${deal.price})`.execute(db);

      expect(await t.store.migrate()).toEqual([
        ...MIGRATION_NAMES.filter((name) => name >= '0004_feed_documents'),
        'documents of 2 rows rendered',
      ]);
      expect(await t.store.db.selectFrom('movements').select('document').execute()).toEqual([
        { document: movementDocument(row) },
      ]);
      expect(await t.store.db.selectFrom('trades').select('document').execute()).toEqual([
        { document: tradeDocument(deal) },
      ]);
    } finally {
      await t.close();
    }
  });
});
