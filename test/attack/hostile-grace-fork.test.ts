/**
 * A thief who holds a spent refresh token replays it within the reuse grace (issue 39, finding 5): the grace
 * (another browser tab that had not yet seen its sibling's new pair) used to give the replay a second live
 * pair, and both branches refreshed for ever (branch A rotated 3 times, then branch B still refreshed and its
 * access token worked), so reuse detection never saw the theft. Now a sign-in has one live chain: the
 * replay's pair supersedes the live branch, which is spent from then on, and whichever branch is used again
 * past the grace revokes the sign-in, both branches' access tokens included. Real server, both stores, a
 * grace of 2 s (REFRESH_REUSE_GRACE_SECONDS; the default 30 s would only make the wait longer). The figures
 * go to `npm run prove` ('hostile-grace-fork-<store>').
 *
 *   cd test && npx vitest run attack/hostile-grace-fork
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { signerFromSeed } from '@gateway/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordFigures } from '../src/figures.js';
import { type RunningGateway, startGateway } from '../src/gateway.js';
import { createDatabase } from '../src/postgres.js';
import { CLIENT_ID, DEMO_SEED, postToken, signIn, type TokenPair } from './support/session.js';

const GRACE_SECONDS = 2;
const STORES = ['sqlite', 'postgres'] as const;
const INVALID_REFRESH_TOKEN = 11308;

/** The secrets every instance on PostgreSQL is given (none is generated there). */
const secrets = () => ({
  TOKEN_SIGNING_KEY: generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  PROXY_SEED: randomBytes(16).toString('hex'),
  CURSOR_SECRET: randomBytes(32).toString('hex'),
});

/** Waits out the reuse grace (counted in whole seconds: a second and a half more). */
const pastTheGrace = () => new Promise((resolve) => setTimeout(resolve, (GRACE_SECONDS + 1.5) * 1000));

describe.each(STORES)('a thief replays a spent refresh token within the reuse grace, on %s', (store) => {
  let gateway: RunningGateway;
  let database: Awaited<ReturnType<typeof createDatabase>> | undefined;
  /** Answers that let a forked branch live: a superseded branch refreshed past the grace, a token working after. */
  let accepted = 0;
  let tried = 0;

  beforeAll(async () => {
    database = store === 'postgres' ? await createDatabase() : undefined;
    gateway = await startGateway({
      REFRESH_REUSE_GRACE_SECONDS: String(GRACE_SECONDS),
      ...(database ? { DATABASE_URL: database.url, ...secrets() } : {}),
    });
  }, 120_000);

  afterAll(async () => {
    const alive = gateway ? (await fetch(`${gateway.url}/health/live`).catch(() => null))?.status === 200 : false;
    recordFigures(`hostile-grace-fork-${store}`, {
      check: `a sign-in forked by a replay within the reuse grace (${store})`,
      tried: `${tried} uses of forked branches past the grace`,
      accepted,
      alive,
    });
    await gateway?.stop();
    await database?.drop();
  });

  const refresh = async (token: string) => {
    const response = await postToken(gateway.url, {
      grant_type: 'refresh_token',
      scope: 'general',
      client_id: CLIENT_ID,
      refresh_token: token,
    });
    const body = (await response.json()) as TokenPair & { errors?: { code: number }[] };
    return { status: response.status, code: body.errors?.[0]?.code, pair: body };
  };
  const pairOf = async (token: string) => {
    const answer = await refresh(token);
    expect(answer.status, `a refresh within the grace: ${JSON.stringify(answer.pair)}`).toBe(200);
    return answer.pair;
  };
  const movements = async (accessToken: string) =>
    (await fetch(`${gateway.url}/v1/movements?limit=1`, { headers: { authorization: `Bearer ${accessToken}` } }))
      .status;

  /** A use of a forked branch past the grace, which must be refused (the sign-in revoked). */
  async function refusedPastTheGrace(token: string) {
    tried++;
    const answer = await refresh(token);
    if (answer.status === 200) accepted++;
    expect(answer.status).toBe(400);
    expect(answer.code).toBe(INVALID_REFRESH_TOKEN);
  }
  async function deadAccessToken(accessToken: string) {
    tried++;
    const status = await movements(accessToken);
    if (status === 200) accepted++;
    expect(status).toBe(401);
  }

  it("the owner's branch rotated three times, then the thief's: revoked, both branches' tokens dead", async () => {
    const start = await signIn(gateway.url, signerFromSeed(DEMO_SEED, { nonce: 7400 }));
    const a1 = await pairOf(start.refresh_token);
    // The thief replays the spent token within the grace: a pair, which supersedes the owner's.
    const b1 = await pairOf(start.refresh_token);
    // The owner, within the grace, rotates on: its first refresh is a replay that supersedes the thief's.
    const a2 = await pairOf(a1.refresh_token);
    const a3 = await pairOf(a2.refresh_token);
    const a4 = await pairOf(a3.refresh_token);
    expect(await movements(a4.access_token)).toBe(200);
    await pastTheGrace();
    // The thief's branch, superseded, is a reuse: the sign-in is revoked.
    await refusedPastTheGrace(b1.refresh_token);
    await refusedPastTheGrace(a4.refresh_token);
    for (const pair of [a1, b1, a4]) await deadAccessToken(pair.access_token);
  });

  it("the thief's branch goes on past the grace; the owner's next refresh revokes the sign-in, the thief's pair included", async () => {
    const start = await signIn(gateway.url, signerFromSeed(DEMO_SEED, { nonce: 7401 }));
    const owner = await pairOf(start.refresh_token);
    const thief = await pairOf(start.refresh_token);
    await pastTheGrace();
    // The thief holds the live branch and refreshes it (the grace cannot tell it from a tab).
    const thiefOn = await pairOf(thief.refresh_token);
    expect(await movements(thiefOn.access_token)).toBe(200);
    // The owner comes back past the grace with the branch the thief's replay superseded: a reuse.
    await refusedPastTheGrace(owner.refresh_token);
    await refusedPastTheGrace(thiefOn.refresh_token);
    for (const pair of [owner, thief, thiefOn]) await deadAccessToken(pair.access_token);
  });
});
