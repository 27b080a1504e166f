/** One error handler: every failure answers with the spec's error body, status and catalogue code. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { type ErrorName, errorCatalogue } from '@gateway/generated';
import type { FastifyError } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, specification } from '../src/app.js';
import { testConfig } from '../src/config.js';
import { toApiError } from '../src/error-handler.js';
import { openStore } from '../src/store/store.js';
import { codeOf, type TestApp, testApp } from './support/app.js';
import { stoppedPostgresUrl } from './support/databases.js';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? sources(full) : full.endsWith('.ts') ? [full] : [];
  });
}

describe('the error catalogue, both ways', () => {
  const schema = (
    specification as {
      components: { schemas: { ErrorCode: { enum: number[]; 'x-codes': { code: number; name: string }[] } } };
    }
  ).components.schemas.ErrorCode;

  it('every code of the spec is in the server catalogue, with the same name', () => {
    const fromSpec = Object.fromEntries(schema['x-codes'].map((e) => [e.name, e.code]));
    expect(schema.enum).toEqual(schema['x-codes'].map((e) => e.code));
    const fromCatalogue = Object.fromEntries(Object.entries(errorCatalogue).map(([name, e]) => [name, e.code]));
    expect(fromCatalogue).toEqual(fromSpec);
  });

  it('the server produces every code of the catalogue somewhere, and no other', () => {
    const text = sources(path.resolve(import.meta.dirname, '../src'))
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
    const produced = new Set([...text.matchAll(/(?:ApiError|errorBody)\(\s*'([a-z_]+)'/g)].map((m) => m[1]));
    expect([...produced].filter((name) => name === undefined || !(name in errorCatalogue))).toEqual([]);
    expect(Object.keys(errorCatalogue).filter((name) => !produced.has(name as ErrorName))).toEqual([]);
  });

  it('every error response of every operation documents the ErrorBody', () => {
    const paths = (specification as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> })
      .paths;
    const statuses = Object.values(paths).flatMap((item) =>
      Object.values(item).flatMap((op) => Object.keys(op.responses).filter((s) => s >= '400')),
    );
    expect(statuses.length).toBeGreaterThan(100);
    const catalogueStatuses = new Set(Object.values(errorCatalogue).map((e) => String(e.status)));
    expect(statuses.filter((s) => !catalogueStatuses.has(s))).toEqual([]);
  });
});

describe('failures of every kind', () => {
  let t: TestApp;
  const logs: string[] = [];
  beforeAll(async () => {
    t = await testApp('sqlite', { demo: true });
  });
  afterAll(() => t.close());

  it.each([
    ['an unknown route', { url: '/v1/unknown' }, 404, 10400],
    ['a path outside /v1', { url: '/' }, 404, 10400],
    ['a wrong method', { method: 'PUT' as const, url: '/v1/platforms/ETH' }, 405, 10700],
    ['POST on a GET operation', { method: 'POST' as const, url: '/v1/platforms' }, 405, 10700],
    [
      'POST with broken JSON on a GET operation (the path answers before the body is read)',
      { method: 'POST' as const, url: '/v1/platforms', headers: { 'content-type': 'application/json' }, payload: '{' },
      405,
      10700,
    ],
    [
      'a body where no operation is',
      { method: 'POST' as const, url: '/v1/nowhere', headers: { 'content-type': 'application/json' }, payload: '{' },
      404,
      10400,
    ],
    [
      'a compressed body',
      {
        method: 'POST' as const,
        url: '/v1/oauth2/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': 'gzip' },
        payload: 'grant_type=password',
      },
      415,
      10800,
    ],
    ['an Accept without JSON', { url: '/v1/platforms', headers: { accept: 'text/html' } }, 406, 10900],
    ['JSON refused by q=0', { url: '/v1/platforms', headers: { accept: 'application/json;q=0' } }, 406, 10900],
    [
      'a body of another type',
      { method: 'POST' as const, url: '/v1/oauth2/token', headers: { 'content-type': 'text/plain' }, payload: 'a=b' },
      415,
      10800,
    ],
    [
      'a body of the event stream’s type (a response type only)',
      {
        method: 'POST' as const,
        url: '/v1/oauth2/token',
        headers: { 'content-type': 'text/event-stream' },
        payload: 'data: x',
      },
      415,
      10800,
    ],
    [
      'an unknown body type',
      {
        method: 'POST' as const,
        url: '/v1/oauth2/token',
        headers: { 'content-type': 'application/xml' },
        payload: '<a/>',
      },
      415,
      10800,
    ],
    [
      'a body over 16 KiB',
      {
        method: 'POST' as const,
        url: '/v1/oauth2/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `grant_type=password&x=${'a'.repeat(17_000)}`,
      },
      413,
      11000,
    ],
    [
      'broken JSON',
      {
        method: 'POST' as const,
        url: '/v1/oauth2/token',
        headers: { 'content-type': 'application/json' },
        payload: '{"grant_type":',
      },
      400,
      10204,
    ],
    [
      'a JSON array body',
      {
        method: 'POST' as const,
        url: '/v1/oauth2/token',
        headers: { 'content-type': 'application/json' },
        payload: '[1]',
      },
      400,
      10201,
    ],
    [
      'a prototype-poisoning body',
      {
        method: 'POST' as const,
        url: '/v1/oauth2/token',
        headers: { 'content-type': 'application/json' },
        payload: '{"__proto__":{"x":1}}',
      },
      400,
      10204,
    ],
    [
      'a JSON body whose value is not text (true for the refresh token)',
      {
        method: 'POST' as const,
        url: '/v1/oauth2/token',
        headers: { 'content-type': 'application/json' },
        payload: '{"grant_type":"refresh_token","scope":"general","client_id":"waves.exchange","refresh_token":true}',
      },
      400,
      10201,
    ],
    [
      'a JSON body whose value is a list (["general"] for the scope)',
      {
        method: 'POST' as const,
        url: '/v1/oauth2/token',
        headers: { 'content-type': 'application/json' },
        payload: '{"grant_type":"refresh_token","scope":["general"],"client_id":"waves.exchange","refresh_token":"x"}',
      },
      400,
      10201,
    ],
    [
      'a sign-out whose token is a number',
      {
        method: 'POST' as const,
        url: '/v1/oauth2/revoke',
        headers: { 'content-type': 'application/json' },
        payload: '{"token":12345}',
      },
      400,
      10201,
    ],
    ['a limit that is no number', { url: '/v1/platforms?limit=1e3' }, 400, 10201],
    ['a limit in hexadecimal', { url: '/v1/deposit/currencies?limit=0x10' }, 400, 10201],
    ['a limit in exponent form', { url: '/v1/deposit/currencies?limit=1e1' }, 400, 10201],
    ['a limit with a plus sign', { url: '/v1/deposit/currencies?limit=%2B5' }, 400, 10201],
    ['an offset after a space', { url: '/v1/deposit/currencies?offset=%201' }, 400, 10201],
    ['an offset past 2^53', { url: '/v1/deposit/currencies?offset=9007199254740993' }, 400, 10201],
    ['an infinite offset', { url: '/v1/deposit/currencies?offset=Infinity' }, 400, 10201],
    ['a negative offset', { url: '/v1/deposit/currencies?offset=-1' }, 400, 10201],
    ['a cursor too long', { url: `/v1/platforms?after=${'A'.repeat(300)}` }, 400, 10201],
    ['a forged cursor', { url: '/v1/platforms?after=QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFB' }, 400, 10206],
  ])('%s: %i, code %i', async (_name, request, status, code) => {
    const response = await t.app.inject(request);
    expect(response.statusCode, response.body).toBe(status);
    expect(codeOf(response)).toBe(code);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
  });

  it('405 names the allowed methods', async () => {
    const response = await t.app.inject({ method: 'DELETE', url: '/v1/movements/abc' });
    expect(response.headers.allow).toBe('GET, HEAD');
  });

  it('an unauthenticated request with bad parameters gets 400 (validation runs first), a good one 401', async () => {
    expect((await t.app.inject({ url: '/v1/movements?limit=0' })).statusCode).toBe(400);
    expect((await t.app.inject({ url: '/v1/movements?limit=1' })).statusCode).toBe(401);
  });

  it('an internal error is a 500 with code 10500; its details are logged, never sent', async () => {
    const app = await buildApp(testConfig({ dataDir: t.config.dataDir, logLevel: 'error' }), {
      store: t.store,
      now: () => {
        throw new Error('secret internal detail');
      },
      logStream: { write: (line: string) => logs.push(line) },
    });
    try {
      const response = await app.inject({ url: '/v1/movements', headers: { authorization: 'Bearer a.b.c' } });
      expect(response.statusCode).toBe(500);
      expect(response.json()).toEqual({ errors: [{ code: 10500, message: 'Internal server error' }] });
      expect(response.body).not.toContain('secret');
      expect(logs.join('\n')).toContain('secret internal detail');
    } finally {
      await app.close();
    }
  });
});

describe('a refusal of a plugin the catalogue does not name', () => {
  it('is a 400 of the client, never a 500 of ours', () => {
    for (const statusCode of [412, 416, 418]) {
      const error = Object.assign(new Error('Precondition Failed'), { statusCode }) as FastifyError;
      expect(toApiError(error).kind).toBe('invalid_parameter');
    }
    const failure = Object.assign(new Error('boom'), { statusCode: 500 }) as FastifyError;
    expect(toApiError(failure).kind).toBe('internal_error');
  });
});

describe('the database going away', () => {
  it('answers 503 with Retry-After, fast, and serves again when it returns', async () => {
    // A pool pointed at a port where nothing listens behaves like a stopped PostgreSQL.
    const down = openStore(await stoppedPostgresUrl());
    const real = openStore('sqlite::memory:');
    const store = { ...real, db: down.db };
    const app = await buildApp(testConfig({ dataDir: '/tmp/gateway-503' }), { store });
    try {
      const started = Date.now();
      const response = await app.inject({ url: '/v1/platforms' });
      expect(response.statusCode).toBe(503);
      expect(codeOf(response)).toBe(11200);
      expect(response.headers['retry-after']).toBe('5');
      expect(Date.now() - started).toBeLessThan(6000);
    } finally {
      await app.close();
      await down.close();
      await real.close();
    }
  });
});

describe('CORS', () => {
  it('is closed by default and open to the configured origins, preflight included', async () => {
    const closed = await testApp('sqlite', { demo: true });
    const open = await testApp('sqlite', { demo: true, config: { corsOrigins: ['http://localhost:5173'] } });
    try {
      const origin = { origin: 'http://localhost:5173' };
      expect(
        (await closed.app.inject({ url: '/v1/platforms', headers: origin })).headers['access-control-allow-origin'],
      ).toBeUndefined();
      const simple = await open.app.inject({ url: '/v1/platforms', headers: origin });
      expect(simple.headers['access-control-allow-origin']).toBe('http://localhost:5173');
      const preflight = await open.app.inject({
        method: 'OPTIONS',
        url: '/v1/movements',
        headers: {
          ...origin,
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'authorization',
        },
      });
      expect(preflight.statusCode).toBe(204);
      expect(preflight.headers['access-control-allow-headers']).toMatch(/Authorization/i);
      const other = await open.app.inject({ url: '/v1/platforms', headers: { origin: 'https://evil.example' } });
      expect(other.headers['access-control-allow-origin']).toBeUndefined();
    } finally {
      await closed.close();
      await open.close();
    }
  });
});
