/**
 * pruneSignIns deletes what the refresh-token design leaves behind, a batch at a time: sign-ins that ended
 * (revoked ones included: nothing they issued works any more), and old-form refresh tokens an access
 * token's lifetime after they expired, with their sign-in when it was the last. Live sign-ins, sign-ins whose
 * access tokens may still live and old-form tokens not yet due are kept, and still work.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/domain/refresh-token.js';
import { pruneSignIns } from '../../src/store/token-housekeeping.js';
import { codeOf, postToken, signIn, type TestApp, testApp } from '../support/app.js';
import { DATABASES } from '../support/databases.js';
import { newLedgerUser } from '../support/signers.js';

const DAY = 86_400_000;
const ACCESS_TOKEN_SECONDS = 7 * 86_400 + 300;

describe.each(DATABASES)('sign-ins pruned on %s', (kind) => {
  const clock = { ms: Date.now() };
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp(kind, { demo: true, now: () => clock.ms, config: { refreshTokenTtl: 10 * 86_400 } });
  });
  afterAll(() => t?.close());

  const refresh = (token: string) =>
    postToken(t.app, {
      grant_type: 'refresh_token',
      scope: 'general',
      client_id: 'waves.exchange',
      refresh_token: token,
    });
  const families = async () =>
    (await t.store.db.selectFrom('token_families').select('id').execute()).map((row) => row.id).sort();
  const legacyRows = async () => (await t.store.db.selectFrom('refresh_tokens').select('token_hash').execute()).length;

  async function legacySignIn(createdAt: number) {
    const token = `rt_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url')}`;
    const id = crypto.randomUUID();
    await t.store.db
      .insertInto('token_families')
      .values({ id, account: 'old-form', created_at: new Date(createdAt).toISOString() })
      .execute();
    await t.store.db
      .insertInto('refresh_tokens')
      .values({
        token_hash: hashToken(token),
        family_id: id,
        claims: JSON.stringify({ a: 'old-form', cid: 'waves.exchange', lt: 3600 }),
        expires_at: new Date(createdAt + 10 * DAY).toISOString(),
        used_at: null,
        created_at: new Date(createdAt).toISOString(),
      })
      .execute();
    return { token, id };
  }

  it('deletes ended sign-ins and due old-form tokens in batches, and keeps what may still be used', async () => {
    const start = clock.ms;
    const seconds = () => Math.floor(clock.ms / 1000);
    // Three sign-ins that will end (one revoked), and old-form tokens of 20 days ago (due) and of today.
    const ending = [];
    for (let i = 0; i < 3; i++) ending.push(await signIn(t.app, newLedgerUser(), seconds() + 3600));
    await t.app.inject({
      method: 'POST',
      url: '/v1/oauth2/revoke',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ token: (ending[0] as { refresh_token: string }).refresh_token }).toString(),
    });
    const due = [];
    for (let i = 0; i < 5; i++) due.push(await legacySignIn(start - 20 * DAY));
    const recentOld = await legacySignIn(start);
    const before = await families();
    // 11 days on: the three ended; one signs in now and stays.
    clock.ms = start + 11 * DAY;
    const kept = await signIn(t.app, newLedgerUser(), seconds() + 3600);
    const now = new Date(clock.ms);
    const deleted: number[] = [];
    for (;;) {
      const n = await pruneSignIns(t.store.db, now, { batch: 4, accessTokenSeconds: ACCESS_TOKEN_SECONDS });
      if (n === 0) break;
      expect(n).toBeLessThanOrEqual(4);
      deleted.push(n);
    }
    // 5 old-form tokens with their 5 sign-ins, then the 3 ended sign-ins.
    expect(deleted.reduce((a, b) => a + b, 0)).toBe(13);
    const gone = new Set([...due.map((d) => d.id)]);
    const left = await families();
    for (const id of gone) expect(left).not.toContain(id);
    expect(left).toContain(recentOld.id);
    expect(left).toHaveLength(before.length - 8 + 1);
    expect(await legacyRows()).toBe(1);
    // What is kept works: the live sign-in refreshes; the ended ones are unknown (refused as they were).
    expect((await refresh(kept.refresh_token)).statusCode).toBe(200);
    expect(codeOf(await refresh((ending[1] as { refresh_token: string }).refresh_token))).toBe(11308);
    expect(await pruneSignIns(t.store.db, now, { batch: 4, accessTokenSeconds: ACCESS_TOKEN_SECONDS })).toBe(0);
  });

  it('keeps a sign-in whose refresh token expired while an access token issued with it may live', async () => {
    const user = newLedgerUser();
    // A week-long password, a day-long refresh token: the access token outlives it.
    const short = await testApp(kind, { demo: true, now: () => clock.ms, config: { refreshTokenTtl: 86_400 } });
    try {
      const pair = await signIn(short.app, user, Math.floor(clock.ms / 1000) + 7 * 86_400);
      const prune = (at: number) =>
        pruneSignIns(short.store.db, new Date(at), { batch: 100, accessTokenSeconds: ACCESS_TOKEN_SECONDS });
      expect(await prune(clock.ms + 2 * DAY)).toBe(0);
      const use = await short.app.inject({
        url: '/v1/movements?limit=1',
        headers: { authorization: `Bearer ${pair.access_token}` },
      });
      expect(use.statusCode).toBe(200);
      // The sign-in's end is kept rounded up to a 64th of its life (domain/refresh-grant.ts `signInEnd`).
      expect(await prune(clock.ms + 7 * DAY - 1000)).toBe(0);
      expect(await prune(clock.ms + 7 * DAY + (7 * DAY) / 64 + 1000)).toBe(1);
    } finally {
      await short.close();
    }
  });
});
