/**
 * A hostile client times refusals to learn whether a public key has signed in to this instance (issue 39,
 * finding 6): password grants with a bad signature for a key seen before and for a key never seen, in
 * interleaved pairs (the order within each pair drawn at random, so that drift in the machine's load falls
 * on both alike), used to show the never-seen key slower in 67-71% of 400 pairs (z 7 to 8): the key cache
 * skipped the subgroup check and the key's conversion for a key it held. Both refusals must cost the same.
 *
 * Checked by a sign test, not by a time: over the pairs, how often the never-seen key's refusal was the
 * slower one. With no difference that count is binomial (n, 1/2); the test fails when it lies more than
 * Z_BOUND standard deviations from n/2 (by chance about once in 16,000 runs). Real server, both stores; the
 * figures go to `npm run prove` ('hostile-grant-timing-<store>').
 *
 *   cd test && npx vitest run attack/grant-timing
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { type LedgerSigner, passwordFor, signerFromSeed } from '@gateway/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordFigures } from '../src/figures.js';
import { type RunningGateway, startGateway } from '../src/gateway.js';
import { createDatabase } from '../src/postgres.js';
import { createRng } from './support/prng.js';
import { CHAIN_ID, CLIENT_ID, DEMO_SEED, nowSeconds, signIn } from './support/session.js';

const PAIRS = 600;
const WARM_UP = 40;
const Z_BOUND = 4;
const STORES = ['sqlite', 'postgres'] as const;

/** The secrets every instance on PostgreSQL is given (none is generated there). */
const secrets = () => ({
  TOKEN_SIGNING_KEY: generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  PROXY_SEED: randomBytes(16).toString('hex'),
  CURSOR_SECRET: randomBytes(32).toString('hex'),
});

/**
 * A password of `signer` for `expiry` whose signature is the key's own, over the next second's text: a real
 * signature of that key (the sign bit and the encoding its valid ones have) that does not verify.
 */
async function badPassword(signer: LedgerSigner, expiry: number): Promise<string> {
  const signedForLater = await passwordFor(signer, CHAIN_ID, CLIENT_ID, expiry + 1);
  return `${expiry}:${signedForLater.split(':')[1]}`;
}

const grantBody = (signer: LedgerSigner, password: string) =>
  new URLSearchParams({
    grant_type: 'password',
    scope: 'general',
    username: signer.publicKey,
    password,
    client_id: CLIENT_ID,
  }).toString();

/** One refused grant: the microseconds from sending it to reading the whole answer. */
async function refusalMicros(gateway: RunningGateway, body: string): Promise<number> {
  const started = process.hrtime.bigint();
  const response = await fetch(`${gateway.url}/v1/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
  const answer = (await response.json()) as { errors?: { code: number }[] };
  const micros = Number(process.hrtime.bigint() - started) / 1000;
  expect(response.status).toBe(400);
  expect(answer.errors?.[0]?.code, 'a bad signature').toBe(11307);
  return micros;
}

describe.each(STORES)('a hostile client times bad-signature grants by whether the key was seen, on %s', (store) => {
  let gateway: RunningGateway;
  let database: Awaited<ReturnType<typeof createDatabase>> | undefined;
  let figures: Record<string, unknown> = { accepted: 1 };

  beforeAll(async () => {
    database = store === 'postgres' ? await createDatabase() : undefined;
    gateway = await startGateway(database ? { DATABASE_URL: database.url, ...secrets() } : {});
  }, 120_000);

  afterAll(async () => {
    const alive = gateway ? (await fetch(`${gateway.url}/health/live`).catch(() => null))?.status === 200 : false;
    recordFigures(`hostile-grant-timing-${store}`, {
      check: `refusal time tells a key seen before (${store})`,
      tried: `${PAIRS} interleaved pairs of bad-signature grants`,
      alive,
      ...figures,
    });
    await gateway?.stop();
    await database?.drop();
  });

  it('a refusal for a key seen before and for a key never seen are as often the slower of a pair', async () => {
    const expiry = nowSeconds() + 3600;
    const seen = signerFromSeed(DEMO_SEED, { nonce: 7300 });
    await signIn(gateway.url, seen);
    const seenBody = grantBody(seen, await badPassword(seen, expiry));
    // A key of its own for every try: never seen by the instance, since a refusal keeps nothing.
    const unseenBodies: string[] = [];
    for (let i = 0; i < WARM_UP + PAIRS; i++) {
      const unseen = signerFromSeed(DEMO_SEED, { nonce: 1_000_000 + i });
      unseenBodies.push(grantBody(unseen, await badPassword(unseen, expiry)));
    }
    const rng = createRng(39);
    let unseenSlower = 0;
    let ties = 0;
    for (let i = 0; i < WARM_UP + PAIRS; i++) {
      const unseenBody = unseenBodies[i] as string;
      const seenFirst = rng.chance(0.5);
      const first = await refusalMicros(gateway, seenFirst ? seenBody : unseenBody);
      const second = await refusalMicros(gateway, seenFirst ? unseenBody : seenBody);
      if (i < WARM_UP) continue;
      const [seenMicros, unseenMicros] = seenFirst ? [first, second] : [second, first];
      if (unseenMicros > seenMicros) unseenSlower++;
      else if (unseenMicros === seenMicros) ties++;
    }
    const n = PAIRS - ties;
    const z = (2 * unseenSlower - n) / Math.sqrt(n);
    figures = { accepted: Math.abs(z) < Z_BOUND ? 0 : 1, pairs: n, unseenSlower, z: Number(z.toFixed(2)) };
    expect(
      Math.abs(z),
      `the never-seen key's refusal was the slower in ${unseenSlower} of ${n} pairs (z ${z.toFixed(2)})`,
    ).toBeLessThan(Z_BOUND);
  }, 300_000);
});
