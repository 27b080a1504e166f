/**
 * The mock as a web page uses it (`npm run mock`: scripts/mock-front.mjs in front of Prism): lists page to
 * their end without repeating a row, and any call, an event stream included, fails on demand with the
 * documented JSON error.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { mockFront, parsePrefer } from '../../scripts/mock-front.mjs';
import { spec } from '../src/spec.js';

const BEARER = {
  authorization: 'Bearer eyJhbGciOiJFZERTQSJ9.eyJhIjoiM1A5S1IzM1F5WHdmVFh2OGtLdE5HWll0Z0trM1JYU1VrMzYifQ.c2ln',
};
const LISTS = ['/v1/movements', '/v1/platforms', '/v1/addresses/3P9KR33QyXwfTXv8kKtNGZYtgKk3RXSUk36/trades/WAVES/USDT'];

let front: Server;
let base: string;
beforeAll(async () => {
  front = mockFront({ upstream: inject('mockUrl'), document: spec });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => front.close(() => resolve())));

interface Page {
  page_info: { has_next_page: boolean; last_cursor: string | null };
  items: { id: string }[];
}

describe('the mock in front of Prism', () => {
  it.each(LISTS)('%s pages to its end, and no row comes twice', async (path) => {
    const seen: string[] = [];
    let after: string | null = null;
    for (let pages = 0; pages < 5; pages += 1) {
      const url = new URL(path, base);
      if (after) url.searchParams.set('after', after);
      const answer = await fetch(url, { headers: BEARER });
      expect(answer.status).toBe(200);
      const page = (await answer.json()) as Page;
      seen.push(...page.items.map((item) => item.id));
      if (!page.page_info.has_next_page) break;
      after = page.page_info.last_cursor;
      expect(after).toBeTruthy();
    }
    expect(seen.length).toBeGreaterThan(0);
    expect(new Set(seen).size).toBe(seen.length);
    // The walk ended (no list of the mock pages forever).
    const last = new URL(path, base);
    if (after) last.searchParams.set('after', after);
    expect(((await (await fetch(last, { headers: BEARER })).json()) as Page).page_info.has_next_page).toBe(false);
  });

  it('a named example or status asked for is still answered as asked, `after` or not', async () => {
    const answer = await fetch(`${base}/v1/movements?after=abc`, { headers: { ...BEARER, prefer: 'example=page' } });
    expect(((await answer.json()) as Page).page_info.has_next_page).toBe(true);
    const refused = await fetch(`${base}/v1/movements?after=abc`, { headers: { ...BEARER, prefer: 'code=401' } });
    expect(refused.status).toBe(401);
  });

  it.each([401, 500, 503])('an event stream fails on demand with %i and the JSON error body', async (status) => {
    const answer = await fetch(`${base}/v1/events`, {
      headers: { ...BEARER, accept: 'text/event-stream', prefer: `code=${status}` },
    });
    expect(answer.status).toBe(status);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await answer.json()) as { errors: { code: number }[] };
    expect(body.errors[0]?.code).toBeGreaterThan(0);
  });

  it('streams pass through as they come, and preflights too', async () => {
    const controller = new AbortController();
    const answer = await fetch(`${base}/v1/events`, {
      headers: { ...BEARER, accept: 'text/event-stream' },
      signal: controller.signal,
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = answer.body?.getReader();
    const first = await reader?.read();
    expect(new TextDecoder().decode(first?.value)).toMatch(/^(retry|id|event|:)/m);
    controller.abort();
    const preflight = await fetch(`${base}/v1/movements`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization, prefer',
      },
    });
    expect(preflight.status).toBeLessThan(300);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
  });

  it('reads Prefer as Prism does', () => {
    expect(parsePrefer('code=400, example=bad_address')).toEqual({ code: '400', example: 'bad_address' });
    expect(parsePrefer('dynamic=true')).toEqual({ dynamic: 'true' });
    expect(parsePrefer(undefined)).toEqual({});
  });
});
