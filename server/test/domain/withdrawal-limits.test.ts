/**
 * The bounds on an account's withdrawal proxies, through the app: a cap on the proxies it holds (403, code
 * 10102; the store's count, so one cap for every instance, whatever the concurrency) and a rate of new ones
 * (429, code 11100, Retry-After; counted in Redis for every instance when there is one). A proxy the account
 * has is answered whatever the limits say.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { signIn, type TestApp, testApp } from '../support/app.js';
import { DATABASES } from '../support/databases.js';
import { testRedis } from '../support/redis.js';
import { ledgerUser } from '../support/signers.js';

/** A valid EVM destination of its own for each `n` (lowercase: no checksum to compute). */
const destination = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const path = (n: number) => `/v1/withdraw/addresses/USDT/${destination(n)}/ETH`;

/** A new account (a random seed), signed in at `app`. */
async function freshAccount(app: FastifyInstance): Promise<{ address: string; auth: string }> {
  const user = ledgerUser(randomBytes(16).toString('hex'));
  return { address: user.address, auth: `Bearer ${(await signIn(app, user)).access_token}` };
}

const get = (app: FastifyInstance, url: string, authorization: string) =>
  app.inject({ url, headers: { authorization } });
const errorOf = (response: { json(): unknown }) =>
  (response.json() as { errors: { code: number; details?: Record<string, string> }[] }).errors[0];

describe.each(DATABASES)('the limits on withdrawal addresses on %s', (kind) => {
  const apps: TestApp[] = [];
  afterAll(() => Promise.all(apps.map((t) => t.close())));
  async function app(config: { withdrawalAddressesPerAccount?: number; withdrawalAddressRateLimit?: number }) {
    const t = await testApp(kind, { demo: true, config });
    apps.push(t);
    return t;
  }
  const proxiesOf = (t: TestApp, account: string) =>
    t.store.db.selectFrom('withdrawal_addresses').select('proxy_address').where('account', '=', account).execute();

  it('an account holds at most its cap of proxies: the next new one is 403 (10102), its own still answered', async () => {
    const t = await app({ withdrawalAddressesPerAccount: 3, withdrawalAddressRateLimit: 1000 });
    const { address, auth } = await freshAccount(t.app);
    const given = [];
    for (let n = 1; n <= 3; n++) {
      const response = await get(t.app, path(n), auth);
      expect(response.statusCode, response.body).toBe(200);
      given.push(response.json().proxy_addresses[0]);
    }
    for (const n of [4, 5]) {
      const refused = await get(t.app, path(n), auth);
      expect(refused.statusCode).toBe(403);
      expect(errorOf(refused)).toMatchObject({ code: 10102, details: { limit: '3' } });
    }
    // Its own proxies, in any spelling, and on the deprecated path.
    for (let n = 1; n <= 3; n++) {
      const again = await get(
        t.app,
        `/v1/withdraw/addresses/USDT/${destination(n).toUpperCase().replace('0X', '0x')}`,
        auth,
      );
      expect(again.json().proxy_addresses).toEqual([given[n - 1]]);
    }
    // The ledger's platform allocates nothing, so it is never refused; another account has its own cap.
    const ledger = await get(t.app, `/v1/withdraw/addresses/WAVES/${address}/WAVES`, auth);
    expect(ledger.statusCode).toBe(200);
    const other = await freshAccount(t.app);
    expect((await get(t.app, path(4), other.auth)).statusCode).toBe(200);
    expect(await proxiesOf(t, address)).toHaveLength(3);
  });

  it('the cap holds under concurrent new destinations, across instances: exactly the cap is created', async () => {
    const t = await app({ withdrawalAddressesPerAccount: 5, withdrawalAddressRateLimit: 1000 });
    const instances = kind === 'postgres' ? [t.app, await t.another(), await t.another()] : [t.app];
    const { address, auth } = await freshAccount(t.app);
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        get(instances[i % instances.length] as FastifyInstance, path(100 + i), auth),
      ),
    );
    const statuses = answers.map((a) => a.statusCode);
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 403)).toHaveLength(35);
    expect(await proxiesOf(t, address)).toHaveLength(5);
  });

  it('an account creates at most its rate of new proxies a minute: the next is 429 with Retry-After', async () => {
    const t = await app({ withdrawalAddressesPerAccount: 100, withdrawalAddressRateLimit: 3 });
    const { address, auth } = await freshAccount(t.app);
    const answers = [];
    for (let n = 1; n <= 5; n++) answers.push(await get(t.app, path(n), auth));
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 429, 429]);
    const limited = answers[3];
    expect(errorOf(limited as (typeof answers)[number])).toMatchObject({ code: 11100, details: { limit: '3' } });
    const retryAfter = Number(limited?.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // The proxies it has are never limited, nor are concurrent requests for one of them.
    const again = await Promise.all([1, 2, 3, 1, 2, 3].map((n) => get(t.app, path(n), auth)));
    expect(again.map((a) => a.statusCode)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(again.slice(0, 3).map((a) => a.json().proxy_addresses[0])).toEqual(
      answers.slice(0, 3).map((a) => a.json().proxy_addresses[0]),
    );
    // Each account has its own rate.
    const other = await freshAccount(t.app);
    expect((await get(t.app, path(4), other.auth)).statusCode).toBe(200);
    expect(await proxiesOf(t, address)).toHaveLength(3);
  });

  it('concurrent first requests for one new destination count once against the rate', async () => {
    const t = await app({ withdrawalAddressesPerAccount: 100, withdrawalAddressRateLimit: 2 });
    const { auth } = await freshAccount(t.app);
    const first = await Promise.all(Array.from({ length: 20 }, () => get(t.app, path(1), auth)));
    expect(new Set(first.map((a) => a.statusCode))).toEqual(new Set([200]));
    expect(new Set(first.map((a) => a.json().proxy_addresses[0])).size).toBe(1);
    // One of the two new proxies of the minute is left.
    expect((await get(t.app, path(2), auth)).statusCode).toBe(200);
    expect((await get(t.app, path(3), auth)).statusCode).toBe(429);
  });
});

const redis = await testRedis(
  'the shared rate of new withdrawal addresses (server/test/domain/withdrawal-limits.test.ts)',
);

describe.skipIf(!redis)('the rate of new withdrawal addresses, shared through Redis', () => {
  const apps: TestApp[] = [];
  afterEach(() => Promise.all(apps.splice(0).map((t) => t.close())));

  it('two instances count one rate per account', async () => {
    const redisUrl = `redis://${redis?.host}:${redis?.port}`;
    const t = await testApp('postgres', { demo: true, config: { redisUrl, withdrawalAddressRateLimit: 4 } });
    apps.push(t);
    const instances = [t.app, await t.another()];
    // A fresh account: the Redis is shared by every run, and the count is by account.
    const { auth } = await freshAccount(t.app);
    const statuses = [];
    for (let n = 1; n <= 8; n++)
      statuses.push((await get(instances[n % 2] as FastifyInstance, path(n), auth)).statusCode);
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429, 429, 429]);
  });
});
