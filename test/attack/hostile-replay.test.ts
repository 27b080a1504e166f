/**
 * A hostile client replays passwords it captured (from a proxy's or a server's log: deployed clients send
 * them in the query string) after their owners signed out, against two real server processes on one
 * PostgreSQL database, as a load balancer would spread it: the revoke goes to A, the replays to A and B, in
 * the query string and in a form body, one by one and many at once. Every replay must be refused with 400 and
 * code 11309, on B as at once as on A; a password signed for a later expiry signs its owner in again on both,
 * and another account is not affected. The figures go to `npm run prove` ('hostile-replay').
 *
 *   cd test && npx vitest run attack/hostile-replay
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { type LedgerSigner, passwordFor, signerFromSeed } from '@gateway/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordFigures } from '../src/figures.js';
import { type RunningGateway, startGateway } from '../src/gateway.js';
import { createDatabase } from '../src/postgres.js';
import { CHAIN_ID, CLIENT_ID, DEMO_SEED, nowSeconds, type TokenPair } from './support/session.js';

const WEEK = 604_800;
const SIGNED_OUT = 11309;
const VICTIMS = 4;
const AT_ONCE = 20;

interface Answer {
  status: number;
  code: number | undefined;
}

const fieldsOf = async (signer: LedgerSigner, expiry: number) => ({
  grant_type: 'password',
  scope: 'general',
  username: signer.publicKey,
  password: await passwordFor(signer, CHAIN_ID, CLIENT_ID, expiry),
  client_id: CLIENT_ID,
});

/** The password grant in a form body, or in the query string with an empty JSON body (as ccxt sends it). */
async function grant(gateway: RunningGateway, fields: Record<string, string>, where: 'body' | 'query') {
  const query = new URLSearchParams(fields);
  const response =
    where === 'body'
      ? await fetch(`${gateway.url}/v1/oauth2/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: query,
        })
      : await fetch(`${gateway.url}/v1/oauth2/token?${query}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
        });
  const body = (await response.json()) as TokenPair & { errors?: { code: number }[] };
  return { status: response.status, code: body.errors?.[0]?.code, pair: body };
}

const revoke = (gateway: RunningGateway, token: string) =>
  fetch(`${gateway.url}/v1/oauth2/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }),
  });

const movements = (gateway: RunningGateway, accessToken: string) =>
  fetch(`${gateway.url}/v1/movements?limit=1`, { headers: { authorization: `Bearer ${accessToken}` } });

describe('a hostile client replays captured passwords after sign-out, across two instances', () => {
  let database: Awaited<ReturnType<typeof createDatabase>>;
  let a: RunningGateway;
  let b: RunningGateway;
  const replays: Answer[] = [];

  beforeAll(async () => {
    database = await createDatabase();
    const env = {
      DATABASE_URL: database.url,
      TOKEN_SIGNING_KEY: generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      PROXY_SEED: randomBytes(16).toString('hex'),
      CURSOR_SECRET: randomBytes(32).toString('hex'),
    };
    a = await startGateway(env);
    b = await startGateway(env);
  }, 120_000);

  afterAll(async () => {
    const alive = await Promise.all(
      [a, b].map(async (g) => (g ? (await fetch(`${g.url}/health/live`).catch(() => null))?.status === 200 : false)),
    );
    recordFigures('hostile-replay', {
      check: 'password replay after sign-out',
      tried: `${replays.length} replays of ${VICTIMS * 2} captured passwords of ${VICTIMS} signed-out accounts, 2 instances`,
      accepted: replays.filter((r) => r.status >= 200 && r.status < 300).length,
      alive: alive.every(Boolean),
    });
    await a?.stop();
    await b?.stop();
    await database?.drop();
  });

  /** Counts one replay; it must be refused as signed out. */
  function replayed(answer: Answer) {
    replays.push(answer);
    expect(answer.status).toBe(400);
    expect(answer.code).toBe(SIGNED_OUT);
  }

  it('refuses every replay on both instances at once; a later expiry signs in again; other accounts are untouched', async () => {
    const neighbour = signerFromSeed(DEMO_SEED, { nonce: 3999 });
    const theirs = await fieldsOf(neighbour, nowSeconds() + 3600);
    expect((await grant(b, theirs, 'query')).status, 'control: the neighbour signs in').toBe(200);

    for (let i = 0; i < VICTIMS; i++) {
      const victim = signerFromSeed(DEMO_SEED, { nonce: 3000 + i });
      // An earlier sign-in (another device, a day shorter) and the one signed out, as a client signs it.
      const expiry = nowSeconds() + WEEK;
      const earlier = await fieldsOf(victim, expiry - 86_400);
      const captured = await fieldsOf(victim, expiry);
      expect((await grant(b, earlier, 'query')).status, 'control: the earlier sign-in').toBe(200);
      const signedIn = await grant(a, captured, 'query');
      expect(signedIn.status, 'control: the sign-in').toBe(200);
      expect((await revoke(a, signedIn.pair.refresh_token)).status, 'control: the sign-out').toBe(200);
      expect((await movements(a, signedIn.pair.access_token)).status, 'control: its access token is dead').toBe(401);

      // One by one, on B first (the other instance), in the query string and in a form body.
      for (const gateway of [b, a]) {
        for (const where of ['query', 'body'] as const) {
          replayed(await grant(gateway, captured, where));
          replayed(await grant(gateway, earlier, where));
        }
      }
      // Many at once, spread over both instances.
      const burst = await Promise.all(
        Array.from({ length: AT_ONCE }, (_, n) =>
          grant(n % 2 ? a : b, n % 4 < 2 ? captured : earlier, n % 3 ? 'query' : 'body'),
        ),
      );
      for (const answer of burst) replayed(answer);

      // The owner signs a later expiry (a second later, as a client signing now + 1 week does): both accept it.
      const later = await fieldsOf(victim, expiry + 1);
      const back = await grant(b, later, 'query');
      expect(back.status, 'control: a later expiry signs in again').toBe(200);
      expect((await movements(a, back.pair.access_token)).status).toBe(200);
      expect((await movements(b, back.pair.access_token)).status).toBe(200);
    }

    // The neighbour's captured password was not signed out: it still works (it is a password, not a sign-out).
    expect((await grant(a, theirs, 'body')).status, 'control: another account is not affected').toBe(200);
    expect(replays.length).toBe(VICTIMS * (8 + AT_ONCE));
  }, 120_000);
});
