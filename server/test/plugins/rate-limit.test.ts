/**
 * The token endpoint's rate limit on a real Redis reached through a TCP proxy the tests cut: shared by two
 * instances while Redis answers; counted by each instance alone (not switched off) while it is lost, at
 * start or later; shared again once it is back. The state is in `gateway_redis_up` and in one log line at
 * each change. The shared Redis itself is never stopped.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import { createTestStore, type TestStore } from '../support/databases.js';
import { recordFigures } from '../support/figures.js';
import { testRedis } from '../support/redis.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

const redis = await testRedis("the tests of the rate limit's Redis fallback (server/test/plugins/rate-limit.test.ts)");
const LIMIT = 5;
/** Each Redis fault injected, and the token requests it let through past the limit (for `npm run prove`). */
const faults: { fault: string; overLimit: number }[] = [];
afterAll(() => {
  if (!redis) return;
  recordFigures('redis-loss', {
    injected: faults.length,
    overLimit: faults.reduce((n, f) => n + f.overLimit, 0),
    faults,
  });
});
/** Answers past the limit that were not 429. */
const overLimit = (seen: number[]) => seen.slice(LIMIT).filter((status) => status !== 429).length;

interface Instance {
  app: FastifyInstance;
  /** The log lines about Redis, as written. */
  redisLines(): { level: number; msg: string }[];
}

describe.skipIf(!redis)("the token endpoint's rate limit when Redis goes away", () => {
  let proxy: TcpProxy;
  let database: TestStore;
  let dataDir: string;
  const instances: Instance[] = [];

  beforeEach(async () => {
    proxy = await startTcpProxy(redis?.port ?? 0, redis?.host);
    database = await createTestStore('sqlite');
    dataDir = mkdtempSync(path.join(tmpdir(), 'gateway-data-'));
  });
  afterEach(async () => {
    await Promise.all(instances.splice(0).map((i) => i.app.close()));
    await proxy.close();
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function instance(): Promise<Instance> {
    const lines: string[] = [];
    const config = testConfig({
      dataDir,
      redisUrl: redis?.urlThrough(proxy.port) ?? '',
      tokenRateLimit: LIMIT,
      logLevel: 'info',
    });
    const app = await buildApp(config, { store: database.reopen(), logStream: { write: (l) => lines.push(l) } });
    const made = {
      app,
      redisLines: () =>
        lines
          .map((l) => JSON.parse(l) as { level: number; msg?: string; err?: unknown })
          .filter((l) => /^Redis /.test(l.msg ?? ''))
          .map(({ level, msg, err }) => ({ level, msg: msg ?? '', ...(err ? { err } : {}) })),
    };
    instances.push(made);
    return made;
  }

  /** A client address of this test's own: its counts start at zero in the shared Redis. */
  const newClient = () => `10.${[...randomBytes(3)].join('.')}`;

  /** A refused sign-in (400 under the limit) from `client`. */
  const tokenRequest = (app: FastifyInstance, client: string) =>
    app.inject({
      method: 'POST',
      url: '/v1/oauth2/token',
      remoteAddress: client,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        grant_type: 'password',
        scope: 'general',
        username: 'x',
        password: '1:x',
        client_id: 'waves.exchange',
      }).toString(),
    });

  /** The statuses of `count` requests from one new client, sent to `apps` in turn; each 429 checked. */
  async function statuses(apps: FastifyInstance[], count: number): Promise<number[]> {
    const client = newClient();
    const seen: number[] = [];
    for (let i = 0; i < count; i++) {
      const response = await tokenRequest(apps[i % apps.length] as FastifyInstance, client);
      seen.push(response.statusCode);
      if (response.statusCode === 429) {
        expect(response.json().errors[0].code).toBe(11100);
        expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
      }
    }
    return seen;
  }

  const redisUp = async (app: FastifyInstance) =>
    /^gateway_redis_up (\d)$/m.exec((await app.inject({ url: '/metrics' })).body)?.[1];

  const limited = (count: number) => [...Array(LIMIT).fill(400), ...Array(count - LIMIT).fill(429)];

  it('counts on each instance alone while Redis is lost, says so once, and counts together again once it is back', async () => {
    const a = await instance();
    const b = await instance();
    expect(await redisUp(a.app)).toBe('1');
    // Shared: alone, each instance would let all six through (three each).
    expect(await statuses([a.app, b.app], 6)).toEqual(limited(6));

    proxy.down();
    const started = performance.now();
    // Not switched off: past the limit, 429 from each instance's own count.
    const [alone, other] = [await statuses([a.app], 8), await statuses([b.app], 8)];
    faults.push({ fault: 'Redis cut under two instances', overLimit: overLimit(alone) + overLimit(other) });
    expect(alone).toEqual(limited(8));
    expect(other).toEqual(limited(8));
    // No request waits on the dead Redis (16 requests; a generous bound for a busy machine).
    expect(performance.now() - started).toBeLessThan(5000);
    expect(await redisUp(a.app)).toBe('0');
    expect(await redisUp(b.app)).toBe('0');
    // Still ready (each instance counts alone), and both health answers say what is missing.
    const ready = await a.app.inject({ url: '/health/ready' });
    expect([ready.statusCode, ready.json()]).toEqual([
      200,
      { status: 'ok', checks: { database: 'ok', storage: 'ok', redis: 'unavailable' } },
    ]);
    expect((await a.app.inject({ url: '/health/serving' })).json()).toMatchObject({
      status: 'degraded',
      checks: { database: 'ok', catalogue: 'ok', redis: 'unavailable' },
    });
    // Each instance, with two clients, one address (N instances: at most N times the limit).
    const client = newClient();
    const perInstance = [];
    for (let i = 0; i < 12; i++) perInstance.push((await tokenRequest(i % 2 ? a.app : b.app, client)).statusCode);
    expect(perInstance.filter((s) => s === 400)).toHaveLength(2 * LIMIT);

    // Through several reconnection attempts (ioredis retries at growing intervals), still one line.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await statuses([a.app, b.app], 2);
    for (const i of [a, b]) {
      expect(i.redisLines()).toEqual([
        { level: 40, msg: expect.stringMatching(/is lost .*counted by each instance alone/) },
      ]);
      expect(JSON.stringify(i.redisLines())).not.toMatch(/stack/);
    }

    proxy.up();
    await vi.waitFor(async () => {
      expect(await redisUp(a.app)).toBe('1');
      expect(await redisUp(b.app)).toBe('1');
    }, 10_000);
    expect((await a.app.inject({ url: '/health/serving' })).json()).toMatchObject({
      status: 'ok',
      checks: { redis: 'ok' },
    });
    for (const i of [a, b]) {
      expect(i.redisLines()).toHaveLength(2);
      expect(i.redisLines()[1]).toEqual({
        level: 40,
        msg: expect.stringMatching(/is back: rate limits are shared again/),
      });
    }
    expect(await statuses([a.app, b.app], 6)).toEqual(limited(6));
  });

  it('a Redis that stops answering costs the requests in flight at most its command timeout, then counts alone until it answers', async () => {
    const a = await instance();
    expect(await redisUp(a.app)).toBe('1');
    proxy.stall();
    const client = newClient();
    const waits: number[] = [];
    const seen: number[] = [];
    for (let i = 0; i < 7; i++) {
      const started = performance.now();
      seen.push((await tokenRequest(a.app, client)).statusCode);
      waits.push(performance.now() - started);
    }
    faults.push({ fault: 'Redis hung (connection open, no answers)', overLimit: overLimit(seen) });
    expect(seen).toEqual(limited(7));
    // The first waits for the command timeout (1 s); the others do not wait on Redis at all.
    expect(waits[0]).toBeGreaterThan(900);
    expect(Math.max(...waits.slice(1))).toBeLessThan(900);
    expect(await redisUp(a.app)).toBe('0');
    expect(a.redisLines()).toEqual([{ level: 40, msg: expect.stringMatching(/is lost \(Command timed out\)/) }]);

    // Back once every command sent has timed out, and without a request to count: the instance finds out by
    // itself (no reconnection tells it: the connection never closed).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    proxy.up();
    await vi.waitFor(async () => expect(await redisUp(a.app)).toBe('1'), 10_000);
    expect(a.redisLines().map((l) => l.level)).toEqual([40, 40]);
    expect(await statuses([a.app], 6)).toEqual(limited(6));
  });

  it('starts while Redis is down, counting alone and saying so once, then counts in Redis once it answers', async () => {
    proxy.down();
    const a = await instance();
    expect(await redisUp(a.app)).toBe('0');
    const seen = await statuses([a.app], 7);
    faults.push({ fault: 'Redis down at start', overLimit: overLimit(seen) });
    expect(seen).toEqual(limited(7));
    expect(a.redisLines()).toEqual([{ level: 40, msg: expect.stringMatching(/is lost/) }]);

    proxy.up();
    await vi.waitFor(async () => expect(await redisUp(a.app)).toBe('1'), 10_000);
    expect(a.redisLines().map((l) => l.level)).toEqual([40, 40]);
    const b = await instance();
    expect(b.redisLines()).toEqual([]);
    expect(await statuses([a.app, b.app], 6)).toEqual(limited(6));
  });
});

describe('the metric of Redis without REDIS_URL', () => {
  it('is absent: there is no Redis to be up or down, and a 0 would read as an outage', async () => {
    const database = await createTestStore('sqlite');
    const dataDir = mkdtempSync(path.join(tmpdir(), 'gateway-data-'));
    const app = await buildApp(testConfig({ dataDir }), { store: database.store });
    try {
      expect(app.hasDecorator('createRateLimit')).toBe(true);
      expect((await app.inject({ url: '/metrics' })).body).not.toMatch(/gateway_redis_up/);
    } finally {
      await app.close();
      await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
