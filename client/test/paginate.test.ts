import { describe, expect, it } from 'vitest';
import { createGatewayClient } from '../src/gateway.js';
import { fakeFetch, json } from './fake-server.js';

const platforms = ['A', 'B', 'C', 'D', 'E'];
const currencies = ['c1', 'c2', 'c3', 'c4', 'c5'];

/** Platforms by cursor (the cursor is the last id of a page) and currencies by offset. */
function lists() {
  let slow: Promise<void> | undefined;
  const server = fakeFetch(async (r) => {
    await slow;
    const limit = Number(r.url.searchParams.get('limit'));
    if (r.url.pathname === '/v1/platforms') {
      const after = r.url.searchParams.get('after');
      const start = after === null ? 0 : platforms.indexOf(after) + 1;
      const items = platforms.slice(start, start + limit);
      const more = start + limit < platforms.length;
      return json(200, {
        type: 'list',
        page_info: { has_next_page: more, last_cursor: more ? items.at(-1) : null },
        items: items.map((id) => ({ id })),
      });
    }
    const offset = Number(r.url.searchParams.get('offset'));
    return json(200, {
      type: 'list',
      page_info: { has_next_page: offset + limit < currencies.length },
      items: currencies.slice(offset, offset + limit).map((id) => ({ id })),
    });
  });
  const client = createGatewayClient({
    baseUrl: 'https://gw.test',
    chainId: 'W',
    clientId: 'waves.exchange',
    fetch: server.fetch,
  });
  return { client, requests: server.requests, slowDown: (until: Promise<void>) => (slow = until) };
}
const ids = (page: { items: { id: string }[] }) => page.items.map((item) => item.id).join('');

describe('pages', () => {
  it('of a cursor list go forward and back, each with the cursor to come back to it', async () => {
    const { client } = lists();
    const pages = client.platforms({ pageSize: 2 }).pages();
    expect(pages.current).toBeUndefined();
    const first = await pages.next();
    expect(first).toMatchObject({ index: 0, cursor: undefined, nextCursor: 'B', hasNext: true, hasPrevious: false });
    const second = await pages.next();
    expect([ids(second), second.cursor, second.hasPrevious]).toEqual(['CD', 'B', true]);
    const third = await pages.next();
    expect([ids(third), third.hasNext]).toEqual(['E', false]);
    await expect(pages.next()).rejects.toThrow(RangeError);
    expect(ids(await pages.previous())).toBe('CD');
    expect(ids(await pages.previous())).toBe('AB');
    await expect(pages.previous()).rejects.toThrow(RangeError);
    expect(pages.current?.index).toBe(0);
    // A kept cursor starts a pager there.
    const again = client.platforms({ pageSize: 2 }).pages({ cursor: second.cursor });
    expect(ids(await again.first())).toBe('CD');
  });

  it('of an offset list too; they iterate onward, and calls take turns', async () => {
    const { client, requests, slowDown } = lists();
    const pages = client.depositCurrencies({ pageSize: 2 }).pages();
    const seen: string[] = [];
    for await (const page of pages) seen.push(ids(page));
    expect(seen).toEqual(['c1c2', 'c3c4', 'c5']);
    expect(ids(await pages.previous())).toBe('c3c4');
    const fresh = client.depositCurrencies({ pageSize: 2 }).pages();
    let release: () => void = () => undefined;
    slowDown(new Promise<void>((resolve) => (release = resolve)));
    // Two clicks on Next before the first page arrives: the second goes one page further.
    const [one, two] = [fresh.next(), fresh.next()];
    release();
    expect([ids(await one), ids(await two)]).toEqual(['c1c2', 'c3c4']);
    expect(requests.slice(-2).map((r) => r.url.searchParams.get('offset'))).toEqual(['0', '2']);
  });

  it('leave the item iterators as they were', async () => {
    const { client } = lists();
    const all: string[] = [];
    for await (const platform of client.platforms({ pageSize: 2 })) all.push(platform.id);
    expect(all).toEqual(platforms);
  });
});
