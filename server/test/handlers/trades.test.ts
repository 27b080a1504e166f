/**
 * An address's trades of a pair (public): the demo feed's trades of the address, in the order of `sort`
 * (ties by id in the same order), within `[timestamp__gte, timestamp__lt)`, one page after another; an
 * address or pair without trades is an empty list; a parameter outside the spec is 400 10201 naming it.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoFiles } from '../../src/operator/commands.js';
import { codeOf, type TestApp, testApp } from '../support/app.js';
import { DATABASES } from '../support/databases.js';
import { someoneElse } from '../support/signers.js';

interface FeedTrade {
  id: string;
  address: string;
  amount_currency_id: string;
  price_currency_id: string;
  type: string;
  timestamp: string;
}
const feed = readFileSync(demoFiles.trades, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line) as FeedTrade);
const first = feed[0] as FeedTrade;
const pair = `${first.amount_currency_id}/${first.price_currency_id}`;
const ofFirst = feed.filter(
  (t) =>
    t.address === first.address &&
    t.amount_currency_id === first.amount_currency_id &&
    t.price_currency_id === first.price_currency_id,
);
const byTime = (a: FeedTrade, b: FeedTrade) =>
  a.timestamp === b.timestamp ? (a.id < b.id ? -1 : 1) : a.timestamp < b.timestamp ? -1 : 1;

describe.each(DATABASES)('an address’s trades on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp(kind, { demo: true });
  });
  afterAll(() => t.close());
  const get = (query: string, address = first.address, ofPair = pair) =>
    t.app.inject({ url: `/v1/addresses/${address}/trades/${ofPair}${query}` });

  /** Every id of the list, page after page (`limit` a page). */
  async function walk(query: string): Promise<string[]> {
    const ids: string[] = [];
    let after = '';
    for (let pages = 0; pages < 100; pages++) {
      const response = await get(`${query}${after}`);
      expect(response.statusCode, response.body).toBe(200);
      const page = response.json() as {
        items: { id: string }[];
        page_info: { has_next_page: boolean; last_cursor?: string };
      };
      ids.push(...page.items.map((i) => i.id));
      if (!page.page_info.has_next_page) return ids;
      after = `&after=${encodeURIComponent(page.page_info.last_cursor ?? '')}`;
    }
    throw new Error('more than 100 pages');
  }

  it('pages through the address’s trades of the pair, newest first by default, oldest first with sort=asc', async () => {
    expect(ofFirst.length).toBeGreaterThan(3);
    const ascending = [...ofFirst].sort(byTime).map((trade) => trade.id);
    // Pages of a third and a quarter of the list: several pages, the last one short.
    const [third, quarter] = [Math.ceil(ofFirst.length / 3) + 1, Math.ceil(ofFirst.length / 4) + 1];
    expect(await walk(`?limit=${third}&sort=asc`)).toEqual(ascending);
    expect(await walk(`?limit=${quarter}`)).toEqual([...ascending].reverse());
  });

  it('keeps to [timestamp__gte, timestamp__lt)', async () => {
    const times = [...new Set(ofFirst.map((trade) => trade.timestamp))].sort();
    const [from, to] = [times[1] as string, times.at(-1) as string];
    const expected = ofFirst
      .filter((trade) => trade.timestamp >= from && trade.timestamp < to)
      .sort(byTime)
      .map((trade) => trade.id);
    expect(expected.length).toBeGreaterThan(0);
    const query = `?sort=asc&timestamp__gte=${encodeURIComponent(from)}&timestamp__lt=${encodeURIComponent(to)}`;
    expect(await walk(query)).toEqual(expected);
  });

  it('an address or a pair without trades is an empty list', async () => {
    for (const response of [await get('', someoneElse.address), await get('', first.address, 'USDT/WAVES')]) {
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ items: [], page_info: { has_next_page: false } });
    }
  });

  it('a parameter outside the spec is 400 10201 naming it', async () => {
    const refused = [
      [await get('', 'not-an-address'), 'ledger_address'],
      [await get('?sort=sideways'), 'sort'],
      [await get('?limit=1001'), 'limit'],
      [await get('?timestamp__gte=yesterday'), 'timestamp__gte'],
    ] as const;
    for (const [response, parameter] of refused) {
      expect(response.statusCode, response.body).toBe(400);
      expect(codeOf(response)).toBe(10201);
      expect(response.json().errors[0].details).toMatchObject({ parameter });
    }
  });
});
