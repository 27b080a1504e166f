/**
 * Several stateless instances on one PostgreSQL database, sharing Redis: real server processes, real
 * HTTP. A token of one is accepted by the other; refresh rotation and its reuse grace hold across them;
 * address allocation stays unique and stable under concurrent first requests at different instances;
 * the token endpoint's rate limit is counted once for all of them. Without Redis (on a developer's machine;
 * src/services.ts says so, and CI fails instead) the instances run without it and only that last test is skipped.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { passwordFor, signerFromSeed } from '@gateway/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type RunningGateway, startGateway } from '../src/gateway.js';
import { createDatabase } from '../src/postgres.js';

const DEMO_SEED = 'uncle push human bus echo drastic garden joke sand warfare sentence fossil title color combine';
const REDIS_URL = inject('redisUrl');
const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

describe(`two instances on one PostgreSQL database${REDIS_URL ? ' and one Redis' : ''}`, () => {
  let database: Awaited<ReturnType<typeof createDatabase>>;
  let a: RunningGateway;
  let b: RunningGateway;
  // This run's client address as the load balancer reports it: limits are counted per client.
  const client = `10.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;

  beforeAll(async () => {
    database = await createDatabase();
    const env = {
      DATABASE_URL: database.url,
      TOKEN_SIGNING_KEY: generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      PROXY_SEED: randomBytes(16).toString('hex'),
      CURSOR_SECRET: randomBytes(32).toString('hex'),
      REDIS_URL,
      TRUST_PROXY_HOPS: '1',
      TOKEN_RATE_LIMIT: '40',
    };
    a = await startGateway(env);
    b = await startGateway(env);
  }, 120_000);

  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await database?.drop();
  });

  async function signIn(gateway: RunningGateway, seed = DEMO_SEED, nonce = 0) {
    const signer = signerFromSeed(seed, { nonce });
    const password = await passwordFor(signer, 'W', 'waves.exchange', Math.floor(Date.now() / 1000) + 600);
    const response = await fetch(`${gateway.url}/v1/oauth2/token`, {
      ...form({
        grant_type: 'password',
        scope: 'general',
        username: signer.publicKey,
        password,
        client_id: 'waves.exchange',
      }),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': `${client}9` },
    });
    expect(response.status, await response.clone().text()).toBe(200);
    return (await response.json()) as { access_token: string; refresh_token: string };
  }

  const get = (gateway: RunningGateway, path: string, token: string) =>
    fetch(`${gateway.url}${path}`, { headers: { authorization: `Bearer ${token}` } });

  it('a token issued by one instance is accepted by the other', async () => {
    const { access_token } = await signIn(a);
    const response = await get(b, '/v1/movements?limit=3', access_token);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { items: unknown[] }).items).toHaveLength(3);
  });

  it('two instances refreshing the same token at once: each gets a pair of the one sign-in, which one sign-out ends', async () => {
    // Three rounds: their 27 token requests stay under the instances' shared limit (40 a minute per client).
    for (let round = 0; round < 3; round++) {
      // An account per round: the sign-out ends the round's sign-in, and with it its account's password.
      const { refresh_token } = await signIn(a, DEMO_SEED, 2000 + round);
      const fields = { grant_type: 'refresh_token', scope: 'general', client_id: 'waves.exchange', refresh_token };
      // Two tabs (or a retry) at once, within the reuse grace: one spends the token, the others get pairs too.
      const results = await Promise.all([a, b, a, b].map((g) => fetch(`${g.url}/v1/oauth2/token`, form(fields))));
      expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      const pairs = (await Promise.all(results.map((r) => r.json()))) as { refresh_token: string }[];
      expect(new Set(pairs.map((p) => p.refresh_token)).size).toBe(4);
      const revoked = await fetch(`${a.url}/v1/oauth2/revoke`, form({ token: pairs[1]?.refresh_token ?? '' }));
      expect(revoked.status).toBe(200);
      for (const pair of pairs) {
        const next = await fetch(`${b.url}/v1/oauth2/token`, form({ ...fields, refresh_token: pair.refresh_token }));
        expect(((await next.json()) as { errors: { code: number }[] }).errors[0]?.code).toBe(11308);
      }
    }
  });

  it('deposit and proxy addresses: one per account, never shared, the same at every instance', async () => {
    const tokens = await Promise.all(Array.from({ length: 10 }, (_, i) => signIn(i % 2 ? a : b, DEMO_SEED, 1000 + i)));
    const destination = '0x3f2b1c25A5f23b193560B97988ee98cBDb480730';
    const paths = ['/v1/deposit/addresses/USDT/BSC', `/v1/withdraw/addresses/USDT/${destination}/ETH`];
    for (const path of paths) {
      const answers = await Promise.all(
        tokens.flatMap(({ access_token }) =>
          [a, b, a, b].map(async (g) => {
            const response = await get(g, path, access_token);
            expect(response.status).toBe(200);
            const body = (await response.json()) as { deposit_addresses?: string[]; proxy_addresses?: string[] };
            return (body.deposit_addresses ?? body.proxy_addresses)?.[0];
          }),
        ),
      );
      const perAccount = tokens.map((_, i) => new Set(answers.slice(i * 4, i * 4 + 4)));
      expect(perAccount.every((set) => set.size === 1)).toBe(true);
      expect(new Set(perAccount.map((set) => [...set][0])).size).toBe(tokens.length);
    }
  });

  it.skipIf(!REDIS_URL)("the token endpoint's rate limit is shared through Redis", async () => {
    const address = `${client}7`;
    const statuses: number[] = [];
    for (let i = 0; i < 50; i++) {
      const gateway = i % 2 ? a : b;
      const response = await fetch(`${gateway.url}/v1/oauth2/token`, {
        ...form({
          grant_type: 'password',
          scope: 'general',
          client_id: 'waves.exchange',
          username: 'x',
          password: '1:x',
        }),
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': address },
      });
      statuses.push(response.status);
      if (response.status === 429) {
        expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(((await response.json()) as { errors: { code: number }[] }).errors[0]?.code).toBe(11100);
      }
    }
    // 40 a minute in all: alone, each instance would have let 25 through, 50 in all.
    expect(statuses.filter((s) => s === 400)).toHaveLength(40);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
  });
});
