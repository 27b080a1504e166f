/**
 * Overload is refused, not fatal: past its bound (here a heap bound every process is over), every request is
 * refused at once with 503 in the error body (11202, Retry-After), counted by reason, while the operator's
 * endpoints still answer.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/app.js';
import { type TestApp, testApp } from '../support/app.js';

describe('an overloaded instance', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp('sqlite', { demo: true });
  });
  afterAll(() => t.close());

  it('answers as usual below its bounds', async () => {
    const answer = await t.app.inject({ url: '/v1/platforms' });
    expect(answer.statusCode).toBe(200);
    expect((await t.app.inject({ url: '/metrics' })).body).not.toMatch(/^gateway_requests_shed_total\{/m);
  });

  it('refuses every request at once with 503 (11202) and Retry-After, and still answers /health and /metrics', async () => {
    const app = await buildApp(
      { ...t.config, overloadHeapPercent: 1, overloadEventLoopDelayMs: 0 },
      { store: t.store },
    );
    try {
      // The bounds are sampled once a second.
      const refused = await vi.waitFor(
        async () => {
          const answer = await app.inject({ url: '/v1/platforms' });
          expect(answer.statusCode).toBe(503);
          return answer;
        },
        { timeout: 5000, interval: 100 },
      );
      expect(refused.json()).toEqual({ errors: [{ code: 11202, message: expect.any(String) }] });
      expect(refused.headers['retry-after']).toBe('5');
      expect(refused.headers['x-request-id']).toBeDefined();
      expect(refused.headers['x-content-type-options']).toBe('nosniff');
      const signIn = await app.inject({ method: 'POST', url: '/v1/oauth2/token', payload: {} });
      expect(signIn.statusCode).toBe(503);
      for (const url of ['/health/live', '/health/ready', '/health/serving']) {
        expect((await app.inject({ url })).statusCode, url).toBe(200);
      }
      const metrics = await app.inject({ url: '/metrics' });
      expect(metrics.statusCode).toBe(200);
      expect(metrics.body).toMatch(/^gateway_requests_shed_total\{reason="heapUsedBytes"\} [2-9]\d*$/m);
    } finally {
      await app.close();
    }
  });
});
