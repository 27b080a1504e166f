/**
 * Bounds per client address on what free accounts make (domain/address-limits.ts): password grants an hour,
 * and new withdrawal proxies an hour whatever the accounts they are asked for; 429 with `Retry-After` past a
 * bound, another address counted apart (an IPv6 client by its /64), a proxy asked for again never counted.
 * Before, one address made 30 proxies in 0.3 s through 3 new accounts.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeOf, passwordFields, signIn, type TestApp, testApp } from '../support/app.js';
import { DATABASES } from '../support/databases.js';
import { newLedgerUser } from '../support/signers.js';

const grantFrom = (app: FastifyInstance, client: string, fields: Record<string, string>) =>
  app.inject({
    method: 'POST',
    url: '/v1/oauth2/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': client },
    payload: new URLSearchParams(fields).toString(),
  });

describe.each(DATABASES)('limits per client address on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp(kind, {
      demo: true,
      config: { trustProxyHops: 1, signInsPerAddressHour: 3, withdrawalAddressesPerAddressHour: 2 },
    });
  });
  afterAll(() => t.close());

  it('password grants: 3 an hour from one address (an IPv6 /64 as one), then 429 with Retry-After; another address apart', async () => {
    const first = ['2001:db8:1:2::1', '2001:db8:1:2::ffff', '2001:db8:1:2:aaaa::5'];
    for (const client of first) {
      const answer = await grantFrom(t.app, client, passwordFields(newLedgerUser()));
      expect(answer.statusCode, answer.body).toBe(200);
    }
    const refused = await grantFrom(t.app, '2001:db8:1:2::9', passwordFields(newLedgerUser()));
    expect(refused.statusCode).toBe(429);
    expect(codeOf(refused)).toBe(11100);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3000);
    expect(refused.json().errors[0].message).toMatch(/at most 3 an hour/);
    // Another /64, and an IPv4 client: counted apart.
    expect((await grantFrom(t.app, '2001:db8:1:3::1', passwordFields(newLedgerUser()))).statusCode).toBe(200);
    expect((await grantFrom(t.app, '198.51.100.7', passwordFields(newLedgerUser()))).statusCode).toBe(200);
  });

  it('refresh grants are not sign-ins: not counted', async () => {
    const client = '198.51.100.20';
    const signedIn = (await grantFrom(t.app, client, passwordFields(newLedgerUser()))).json();
    let refreshToken = signedIn.refresh_token as string;
    for (let i = 0; i < 5; i++) {
      const answer = await grantFrom(t.app, client, {
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        scope: 'general',
        client_id: 'waves.exchange',
      });
      expect(answer.statusCode, answer.body).toBe(200);
      refreshToken = answer.json().refresh_token;
    }
  });

  it('new withdrawal proxies: 2 an hour from one address through any accounts; one asked for again is never counted', async () => {
    const client = '203.0.113.40';
    const proxy = async (token: string, destination: string) =>
      t.app.inject({
        url: `/v1/withdraw/addresses/USDT/${destination}/ETH`,
        headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': client },
      });
    const accounts = await Promise.all([0, 1, 2].map(async () => (await signIn(t.app, newLedgerUser())).access_token));
    const destinations = [
      '0x1111111111111111111111111111111111111111',
      '0x2222222222222222222222222222222222222222',
      '0x3333333333333333333333333333333333333333',
    ];
    const a = await proxy(accounts[0] as string, destinations[0] as string);
    expect(a.statusCode, a.body).toBe(200);
    const b = await proxy(accounts[1] as string, destinations[1] as string);
    expect(b.statusCode, b.body).toBe(200);
    const c = await proxy(accounts[2] as string, destinations[2] as string);
    expect(c.statusCode).toBe(429);
    expect(codeOf(c)).toBe(11100);
    expect(c.headers['retry-after']).toBeDefined();
    // Asked for again: the same proxy, not limited.
    const again = await proxy(accounts[0] as string, destinations[0] as string);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(a.json());
  });
});
