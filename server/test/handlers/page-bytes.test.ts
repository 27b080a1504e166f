/**
 * A cursor page is bounded in bytes as well as items (the spec's `x-page-bytes`): over the largest records
 * the spec allows, a page ends early, its body within the budget, and walking the cursors sees every item
 * exactly once, on SQLite and PostgreSQL.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { operationMeta } from '@gateway/generated';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importMovements, importTrades, loadCatalogueFile } from '../../src/operator/commands.js';
import { signIn, type TestApp, testApp } from '../support/app.js';
import { DATABASES } from '../support/databases.js';
import {
  BOUNDS,
  largestCatalogue,
  largestMovement,
  largestTrade,
  longCurrencyId,
  longPlatformId,
} from '../support/largest-records.js';
import { me } from '../support/signers.js';

const PAGE_BYTES = operationMeta.listMovements.pageBytes;
const MOVEMENTS = 150;
const TRADES = 1001;
const [AMOUNT, PRICE] = [longCurrencyId(1), longCurrencyId(2)];

describe.each(DATABASES)('pages of the largest records on %s', (kind) => {
  let t: TestApp;
  let dir: string;
  let authorization: string;
  beforeAll(async () => {
    t = await testApp(kind, { demo: true });
    dir = mkdtempSync(path.join(tmpdir(), 'gateway-pages-'));
    const write = (name: string, text: string) => {
      writeFileSync(path.join(dir, name), text);
      return path.join(dir, name);
    };
    const ndjson = (records: object[]) => records.map((r) => `${JSON.stringify(r)}\n`).join('');
    await loadCatalogueFile(t.store, write('catalogue.json', JSON.stringify(largestCatalogue())));
    const movements = Array.from({ length: MOVEMENTS }, (_, i) => largestMovement(i, me.address, longCurrencyId(0)));
    await importMovements(t.store, write('movements.ndjson', ndjson(movements)), 'W');
    const trades = Array.from({ length: TRADES }, (_, i) => largestTrade(i, me.address, AMOUNT, PRICE));
    await importTrades(t.store, write('trades.ndjson', ndjson(trades)), 'W');
    authorization = `Bearer ${(await signIn(t.app, me)).access_token}`;
  }, 120_000);
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Every page of a list from its first, each checked against the budget; the ids of all their items. */
  const walk = async (url: string, limit: number, headers: Record<string, string> = {}) => {
    const ids: string[] = [];
    const sizes: number[] = [];
    const bytes: number[] = [];
    let after: string | null = null;
    do {
      const answer = await t.app.inject({
        url: `${url}${url.includes('?') ? '&' : '?'}limit=${limit}${after ? `&after=${after}` : ''}`,
        headers,
      });
      expect(answer.statusCode).toBe(200);
      expect(answer.rawPayload.length).toBeLessThanOrEqual(PAGE_BYTES);
      bytes.push(answer.rawPayload.length);
      const page = answer.json() as { items: { id: string }[]; page_info: { last_cursor: string | null } };
      expect(page.items.length).toBeGreaterThan(0);
      ids.push(...page.items.map((item) => item.id));
      sizes.push(page.items.length);
      after = page.page_info.last_cursor;
    } while (after !== null);
    return { ids, sizes, bytes };
  };

  it('movements: a page of the largest ends before its limit, and the walk sees each once', async () => {
    const { ids, sizes, bytes } = await walk('/v1/movements', 100, { authorization });
    expect(sizes[0]).toBeLessThan(100);
    const stored = await t.store.db.selectFrom('movements').select('id').where('account', '=', me.address).execute();
    expect(ids).toHaveLength(stored.length);
    expect(new Set(ids)).toEqual(new Set(stored.map((r) => r.id)));
    console.log(`movements: pages of ${sizes.join(', ')} items, ${bytes.join(', ')} bytes (the largest first)`);
  });

  it('trades: a page of 1,000 of the largest fits the budget, and the walk sees each once', async () => {
    const { ids, sizes, bytes } = await walk(`/v1/addresses/${me.address}/trades/${AMOUNT}/${PRICE}`, 1000);
    // A trade's bounds keep 1,000 of them within the budget: the limit ends these pages.
    expect(sizes).toEqual([1000, 1]);
    expect(ids).toHaveLength(TRADES);
    expect(new Set(ids).size).toBe(TRADES);
    console.log(`trades: pages of ${sizes.join(', ')} items, ${bytes.join(', ')} bytes`);
  });

  it('platforms: a page of the largest ends before its limit, and the walk sees each once', async () => {
    const { ids, sizes, bytes } = await walk('/v1/platforms', 100);
    expect(sizes[0]).toBeLessThan(100);
    const stored = await t.store.db.selectFrom('platforms').select('id').execute();
    expect(ids).toEqual(stored.map((r) => r.id).sort());
    const full = (await t.app.inject({ url: `/v1/platforms/${longPlatformId(0)}` })).json();
    expect(full.currencies).toHaveLength(BOUNDS.currencies);
    console.log(`platforms: pages of ${sizes.join(', ')} items, ${bytes.join(', ')} bytes`);
  });
});
