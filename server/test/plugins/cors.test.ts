/** CORS in demo mode (`serve --demo`, `npm start`): local development origins are accepted; production stays closed. */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { type TestApp, testApp } from '../support/app.js';

const preflight = (app: FastifyInstance, origin: string) =>
  app.inject({
    method: 'OPTIONS',
    url: '/v1/movements',
    headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
  });
const allowed = async (app: FastifyInstance, origin: string) =>
  (await app.inject({ url: '/v1/platforms', headers: { origin } })).headers['access-control-allow-origin'];

const LOCAL = [
  'http://localhost:5173',
  'http://127.0.0.1:3001',
  'http://localhost',
  'http://127.0.0.1:65535',
  'https://localhost:5173',
  'https://127.0.0.1',
  'http://[::1]:8080',
  'https://[::1]',
];
const FOREIGN = [
  'https://evil.example',
  'http://localhost:99999',
  'http://localhost:65536',
  'http://localhost:0',
  'http://localhost:05173',
  'http://localhost:',
  'http://[::1].evil.example',
  'ftp://localhost:21',
  'http://localhost.evil.example',
  'http://127.0.0.1.evil.example:80',
  'http://localhost:5173.evil.example',
  'http://192.168.1.10:5173',
  'null',
];

describe('CORS in demo mode', () => {
  let t: TestApp;
  let demo: FastifyInstance;
  let demoWithOrigins: FastifyInstance;
  beforeAll(async () => {
    t = await testApp('sqlite', { demo: true });
    demo = await buildApp(t.config, { store: t.store, localDevelopmentOrigins: true });
    demoWithOrigins = await buildApp(
      { ...t.config, corsOrigins: ['https://app.example.com'] },
      { store: t.store, localDevelopmentOrigins: true },
    );
  });
  afterAll(async () => {
    await demo?.close();
    await demoWithOrigins?.close();
    await t?.close();
  });

  it('accepts a dev server on any local port, preflight included', async () => {
    for (const origin of LOCAL) {
      expect(await allowed(demo, origin)).toBe(origin);
      const answer = await preflight(demo, origin);
      expect(answer.statusCode).toBe(204);
      expect(answer.headers['access-control-allow-origin']).toBe(origin);
      expect(answer.headers['access-control-allow-headers']).toMatch(/Authorization/i);
    }
  });

  it("allows the mock's Prefer header (ignored by the server) and exposes the request id", async () => {
    const answer = await demo.inject({
      method: 'OPTIONS',
      url: '/v1/platforms',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'prefer',
      },
    });
    expect(answer.headers['access-control-allow-headers']).toMatch(/\bPrefer\b/);
    const read = await demo.inject({
      url: '/v1/platforms',
      headers: { origin: 'http://localhost:5173', prefer: 'code=500' },
    });
    expect(read.statusCode).toBe(200);
    expect(read.headers['access-control-expose-headers']).toMatch(/X-Request-Id/);
  });

  it('refuses other origins', async () => {
    for (const origin of FOREIGN) {
      expect(await allowed(demo, origin)).toBeUndefined();
      expect((await preflight(demo, origin)).headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  it('keeps the configured CORS_ORIGINS beside them', async () => {
    expect(await allowed(demoWithOrigins, 'https://app.example.com')).toBe('https://app.example.com');
    expect(await allowed(demoWithOrigins, 'http://localhost:5173')).toBe('http://localhost:5173');
    expect(await allowed(demoWithOrigins, 'https://evil.example')).toBeUndefined();
  });

  it('an OPTIONS request that is not a preflight gets the API error body (405 with Allow), not plain text', async () => {
    for (const headers of [{}, { origin: 'http://localhost:5173' }, { 'access-control-request-method': 'GET' }]) {
      const answer = await demo.inject({ method: 'OPTIONS', url: '/v1/oauth2/token', headers });
      expect(answer.statusCode, JSON.stringify(headers)).toBe(405);
      expect(answer.headers['content-type']).toMatch(/^application\/json/);
      expect(answer.headers.allow).toBe('POST');
      expect(answer.json().errors[0].code).toBe(10700);
    }
    const unknown = await demo.inject({ method: 'OPTIONS', url: '/v1/nothing-here' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().errors[0].code).toBe(10400);
  });

  it('is not open outside demo mode (the production default stays closed)', async () => {
    for (const origin of [...LOCAL, ...FOREIGN]) {
      expect(await allowed(t.app, origin)).toBeUndefined();
      const answer = await preflight(t.app, origin);
      expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    }
  });
});
