/**
 * The mock as a web page uses it (`npm run mock`: scripts/mock-front.mjs in front of Prism): lists page to
 * their end without repeating a row, any call, an event stream included, fails on demand with the
 * documented JSON error, and an invalid request's 400 body names its violation.
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

  it.each([
    // The spec's generic example says `querystring/limit must be <= 100`; the body says what is wrong.
    ['GET', '/v1/movements?limit=twenty', '', 10201, 'querystring/limit must be integer', 'limit'],
    ['GET', '/v1/platforms?limit=0', '', 10201, 'querystring/limit must be >= 1', 'limit'],
    ['GET', '/v1/movements/a%20b', '', 10201, 'params/id must match pattern "^[A-Za-z0-9_-]{1,64}$"', 'id'],
    ['POST', '/v1/oauth2/token', 'grant_type=password', 10200, 'body/scope is required', 'scope'],
    ['POST', '/v1/oauth2/token', 'scope=general', 10200, 'body/grant_type is required', 'grant_type'],
  ])(
    'an invalid request (%s %s %s) gets the ErrorBody of its violation',
    async (method, path, body, code, message, parameter) => {
      const answer = await fetch(new URL(path, base), {
        method,
        headers: { ...BEARER, ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
        ...(body ? { body } : {}),
      });
      expect(answer.status).toBe(400);
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
      expect(answer.headers.get('sl-violations')).toBeTruthy();
      expect(await answer.json()).toEqual({ errors: [{ code, message, details: { parameter } }] });
    },
  );

  it('an unknown grant type gets the error the spec names for it; a 400 asked for is the example asked for', async () => {
    const unknown = await fetch(`${base}/v1/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=magic',
    });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { errors: { code: number }[] }).errors[0]?.code).toBe(11300);
    const asked = await fetch(`${base}/v1/movements?limit=twenty`, { headers: { ...BEARER, prefer: 'code=400' } });
    expect(asked.status).toBe(400);
    expect(((await asked.json()) as { errors: { message: string }[] }).errors[0]?.message).toBe(
      'querystring/limit must be <= 100',
    );
  });

  it('reads Prefer as Prism does', () => {
    expect(parsePrefer('code=400, example=bad_address')).toEqual({ code: '400', example: 'bad_address' });
    expect(parsePrefer('dynamic=true')).toEqual({ dynamic: 'true' });
    expect(parsePrefer(undefined)).toEqual({});
  });
});
