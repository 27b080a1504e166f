/**
 * A hostile client against withdrawal (proxy) addresses, on real server processes sharing one PostgreSQL
 * (and Redis, when there is one): 200 concurrent requests for random new destinations through two
 * instances at the default limits (at most 10 new proxies a minute per account), 200 more at one instance
 * without the rate (at most 100 proxies per account), and destinations written in every letter case,
 * concurrently, through both instances (one proxy each), with mixed cases that break the EIP-55 checksum
 * (refused). Proxies are counted in the database, not only in the answers.
 *
 * Before the limits, 200 concurrent random destinations made 200 proxies in 462 ms, and one EVM address in
 * its checksummed and its lowercase form got two.
 *
 *   cd test && CI= npx vitest run attack/hostile-withdrawal
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { signerFromSeed } from '@gateway/client';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { recordFigures } from '../src/figures.js';
import { type RunningGateway, startGateway } from '../src/gateway.js';
import { countRows, createDatabase, mostWaitingForAdvisoryLocks } from '../src/postgres.js';
import { signIn } from './support/session.js';

const REDIS_URL = inject('redisUrl');
/** The server's defaults (WITHDRAWAL_ADDRESS_RATE_LIMIT, WITHDRAWAL_ADDRESSES_PER_ACCOUNT). */
const RATE = 10;
const CAP = 100;
const FLOOD = 200;

/** EIP-55, computed here rather than by the server's code. */
function checksummed(lowerHex: string): string {
  const hash = Buffer.from(keccak_256(new TextEncoder().encode(lowerHex))).toString('hex');
  return `0x${[...lowerHex].map((c, i) => (Number.parseInt(hash[i] ?? '0', 16) >= 8 ? c.toUpperCase() : c)).join('')}`;
}
const randomEvm = () => checksummed(randomBytes(20).toString('hex'));
/**
 * The address with the case of its first letter flipped that leaves it mixed: a mixed case that is not its
 * checksum. Flipping a letter into an all-lowercase or all-uppercase form would make an address that carries
 * no checksum, which EIP-55 accepts (4 in 10,000 random addresses, flipping the first letter: the case that
 * once failed this test); null for an address with no such letter.
 */
function brokenCase(address: string): string | null {
  const body = address.slice(2);
  for (const [i, c] of [...body].entries()) {
    if (!/[a-fA-F]/.test(c)) continue;
    const flipped = body.slice(0, i) + (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) + body.slice(i + 1);
    if (flipped !== flipped.toLowerCase() && flipped !== flipped.toUpperCase()) return `0x${flipped}`;
  }
  return null;
}
/** A random checksummed address that has a broken case. */
function randomEvmWithBrokenCase(): string {
  for (;;) {
    const address = randomEvm();
    if (brokenCase(address)) return address;
  }
}

interface Answer {
  status: number;
  retryAfter: string | null;
  proxy?: string;
  code?: number;
  reason?: string;
}

async function ask(gateway: RunningGateway, path: string, token: string): Promise<Answer> {
  const response = await fetch(`${gateway.url}${path}`, {
    headers: { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(30_000),
  });
  const body = (await response.json()) as {
    proxy_addresses?: string[];
    errors?: { code: number; details?: { reason?: string } }[];
  };
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    proxy: body.proxy_addresses?.[0],
    code: body.errors?.[0]?.code,
    reason: body.errors?.[0]?.details?.reason,
  };
}

const freshToken = async (gateway: RunningGateway) =>
  (await signIn(gateway.url, signerFromSeed(randomBytes(16).toString('hex')))).access_token;
const tally = (answers: Answer[]) =>
  answers.reduce<Record<string, number>>((n, a) => {
    const key = a.status === 200 ? '200' : `${a.status}/${a.code}`;
    n[key] = (n[key] ?? 0) + 1;
    return n;
  }, {});

describe('a hostile client against withdrawal addresses', () => {
  let database: Awaited<ReturnType<typeof createDatabase>>;
  /** Two instances at the default limits, and one without the rate (the cap alone). */
  let a: RunningGateway;
  let b: RunningGateway;
  let unrated: RunningGateway;
  const proxies = () => countRows(database.url, 'withdrawal_addresses');
  const figures = { requests: 0, createdPastRate: 0, createdPastCap: 0, duplicates: 0, badCaseAccepted: 0 };

  beforeAll(async () => {
    database = await createDatabase();
    const env = {
      DATABASE_URL: database.url,
      TOKEN_SIGNING_KEY: generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      PROXY_SEED: randomBytes(16).toString('hex'),
      CURSOR_SECRET: randomBytes(32).toString('hex'),
      REDIS_URL,
    };
    a = await startGateway(env);
    [b, unrated] = await Promise.all([
      startGateway(env),
      startGateway({ ...env, WITHDRAWAL_ADDRESS_RATE_LIMIT: '100000' }),
    ]);
  }, 120_000);

  afterAll(async () => {
    const alive = await Promise.all(
      [a, b, unrated].map(async (g) => (await fetch(`${g.url}/health/live`).catch(() => null))?.status === 200),
    );
    const accepted = figures.createdPastRate + figures.createdPastCap + figures.duplicates + figures.badCaseAccepted;
    console.log('hostile-withdrawal', { ...figures, accepted, alive });
    recordFigures('hostile-withdrawal', {
      check: 'proxy floods and letter cases',
      tried: `${figures.requests} requests (2 x ${FLOOD} new destinations at once, spellings)`,
      accepted,
      alive: alive.every(Boolean),
      ...figures,
    });
    await Promise.all([a?.stop(), b?.stop(), unrated?.stop()]);
    await database?.drop();
  });

  it(`${FLOOD} concurrent new destinations through two instances: at most the rate is created, the rest 429`, async () => {
    const token = await freshToken(a);
    const before = await proxies();
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: FLOOD }, (_, i) =>
        ask(i % 2 ? b : a, `/v1/withdraw/addresses/USDT/${randomEvm()}/ETH`, token),
      ),
    );
    const ms = performance.now() - started;
    figures.requests += FLOOD;
    const created = (await proxies()) - before;
    // Without Redis each instance counts its own minute.
    const allowed = REDIS_URL ? RATE : 2 * RATE;
    figures.createdPastRate += Math.max(0, created - allowed);
    console.log(`flood at the rate: ${created} created, ${JSON.stringify(tally(answers))} in ${ms.toFixed(0)} ms`);
    expect(answers.filter((x) => x.status === 200)).toHaveLength(created);
    expect(created).toBeLessThanOrEqual(allowed);
    expect(created).toBeGreaterThanOrEqual(RATE);
    const limited = answers.filter((x) => x.status !== 200);
    expect(limited.every((x) => x.status === 429 && x.code === 11100)).toBe(true);
    expect(limited.every((x) => Number(x.retryAfter) >= 1 && Number(x.retryAfter) <= 60)).toBe(true);
  });

  it(`${FLOOD} concurrent new destinations without the rate: exactly the cap is created, the rest 403 (10102)`, async () => {
    const token = await freshToken(unrated);
    const before = await proxies();
    const started = performance.now();
    const flood = Promise.all(
      Array.from({ length: FLOOD }, () => ask(unrated, `/v1/withdraw/addresses/USDT/${randomEvm()}/ETH`, token)),
    );
    const waiting = mostWaitingForAdvisoryLocks(database.url, flood);
    const answers = await flood;
    const ms = performance.now() - started;
    figures.requests += FLOOD;
    const created = (await proxies()) - before;
    figures.createdPastCap += Math.max(0, created - CAP);
    const mostWaiting = await waiting;
    console.log(
      `flood at the cap: ${created} created, ${JSON.stringify(tally(answers))} in ${ms.toFixed(0)} ms; at most ${mostWaiting} sessions waiting for the allocation lock`,
    );
    expect(created).toBe(CAP);
    expect(answers.filter((x) => x.status === 403 && x.code === 10102)).toHaveLength(FLOOD - CAP);
    // One instance's allocations take turns before they take a connection: none of its sessions waits for
    // the lock in the database, holding a connection that the instance's other requests wait for.
    expect(mostWaiting).toBe(0);
  });

  it('every spelling of a destination, at once through both instances, gets one proxy; a broken case none', async () => {
    const token = await freshToken(a);
    const evm = [randomEvmWithBrokenCase(), randomEvmWithBrokenCase(), randomEvmWithBrokenCase()];
    const segwit = [
      'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
      'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0',
    ];
    const spellings = [
      ...evm.map((x) => ({ route: `ETH/${x}`, forms: [x, x.toLowerCase(), `0x${x.slice(2).toUpperCase()}`] })),
      ...segwit.map((x) => ({ route: `BTC/${x}`, forms: [x, x.toUpperCase()] })),
    ];
    const before = await proxies();
    const requests = spellings.flatMap(({ route, forms }) => {
      const [currency] = route.split('/');
      return forms.flatMap((form) =>
        [a, b, a, b].map(async (g) => ({
          route,
          answer: await ask(g, `/v1/withdraw/addresses/${currency}/${form}/${currency}`, token),
        })),
      );
    });
    const answers = await Promise.all(requests);
    figures.requests += answers.length;
    expect(answers.filter((x) => x.answer.status !== 200)).toEqual([]);
    for (const { route } of spellings) {
      const given = new Set(answers.filter((x) => x.route === route).map((x) => x.answer.proxy));
      figures.duplicates += given.size - 1;
      expect(given.size, route).toBe(1);
    }
    expect((await proxies()) - before).toBe(spellings.length);

    const broken = await Promise.all(
      evm.map((x) => ask(a, `/v1/withdraw/addresses/ETH/${brokenCase(x) ?? ''}/ETH`, token)),
    );
    figures.requests += broken.length;
    figures.badCaseAccepted += broken.filter((x) => x.status === 200).length;
    expect(broken.map((x) => [x.status, x.code, x.reason])).toEqual(evm.map(() => [400, 10207, 'checksum']));
  });
});
