/**
 * A spent refresh token presented again. Within the reuse grace (REFRESH_REUSE_GRACE_SECONDS, 30 s by
 * default) it is a tab that read the shared storage before another tab's new pair reached it: a new pair of
 * the same sign-in, which supersedes the live one (a sign-in has one live refresh token: the branch
 * superseded is spent from then on, and a reuse past the grace like any other). Past the grace, or with a
 * grace of 0, it is a theft: the sign-in is revoked, the pairs issued since included. Nothing brings a
 * revoked sign-in back. Both databases, two instances, the clock moved by the test.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeOf, postToken, signIn, type TestApp, testApp } from '../support/app.js';
import { DATABASES } from '../support/databases.js';
import { isLiveRefreshToken } from '../support/refresh-tokens.js';
import { refusingRefreshTokens } from '../support/refusing.js';
import { newLedgerUser } from '../support/signers.js';

const GRACE = 30;
type Pair = { access_token: string; refresh_token: string; expires_in: number };

const refresh = (app: FastifyInstance, token: string, clientId = 'waves.exchange') =>
  postToken(app, { grant_type: 'refresh_token', scope: 'general', client_id: clientId, refresh_token: token });
const movements = (app: FastifyInstance, token: string) =>
  app.inject({ url: '/v1/movements?limit=1', headers: { authorization: `Bearer ${token}` } });
const revoke = (app: FastifyInstance, token: string) =>
  app.inject({
    method: 'POST',
    url: '/v1/oauth2/revoke',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ token }).toString(),
  });

/** Whether the store holds each pair's refresh token unspent. */
const unspentOf = (t: TestApp, pairs: readonly Pair[]) =>
  Promise.all(pairs.map((pair) => isLiveRefreshToken(t.store.db, pair.refresh_token)));

async function pairOf(response: Awaited<ReturnType<typeof refresh>>): Promise<Pair> {
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

describe.each(DATABASES)('refresh token replays on %s', (kind) => {
  const clock = { ms: Date.now() };
  let t: TestApp;
  let other: FastifyInstance;
  let strict: TestApp;
  const seconds = () => Math.floor(clock.ms / 1000);
  beforeAll(async () => {
    t = await testApp(kind, { demo: true, now: () => clock.ms });
    other = await t.another();
    strict = await testApp(kind, { demo: true, config: { refreshReuseGraceSeconds: 0 } });
  });
  afterAll(async () => {
    await t?.close();
    await strict?.close();
  });

  it('the default grace is 30 seconds', () => {
    expect(t.config.refreshReuseGraceSeconds).toBe(GRACE);
  });

  it('within the grace, a spent token gets a new pair of the same sign-in; every pair works, the last one alone refreshes past the grace', async () => {
    const first = await signIn(t.app, newLedgerUser(), seconds() + 3600);
    const rotated = await pairOf(await refresh(t.app, first.refresh_token));
    // Another tab, at once and at the grace's last second, through the other instance too.
    const replayed = await pairOf(await refresh(other, first.refresh_token));
    clock.ms += GRACE * 1000;
    const late = await pairOf(await refresh(t.app, first.refresh_token));
    const tokens = [rotated, replayed, late].map((p) => p.refresh_token);
    expect(new Set(tokens).size).toBe(3);
    expect(late.expires_in).toBe(seconds() + 3600);
    for (const pair of [rotated, replayed, late]) {
      expect((await movements(other, pair.access_token)).statusCode).toBe(200);
    }
    const metrics = (await t.app.inject({ url: '/metrics' })).body;
    expect(metrics).toMatch(/gateway_token_grants_total\{grant="refresh_token_replayed"\} [1-9]/);
    // One live chain: past the grace, the last pair refreshes; the branches it superseded are reuses.
    clock.ms += (GRACE + 1) * 1000;
    const next = await pairOf(await refresh(other, late.refresh_token));
    expect((await movements(t.app, next.access_token)).statusCode).toBe(200);
    expect(codeOf(await refresh(t.app, replayed.refresh_token))).toBe(11308);
    expect(codeOf(await refresh(t.app, next.refresh_token)), 'the reuse revoked the sign-in').toBe(11308);
    expect(codeOf(await movements(t.app, next.access_token))).toBe(10000);
  });

  it('within the grace, a token spent before the last 16 spent is a reuse: the sign-in is revoked', async () => {
    const first = await signIn(t.app, newLedgerUser(), seconds() + 3600);
    await pairOf(await refresh(t.app, first.refresh_token));
    // Each replay spends the token live until then: after 16 of them, the first is no longer remembered.
    let last: Pair | undefined;
    for (let i = 0; i < 15; i++) last = await pairOf(await refresh(t.app, first.refresh_token));
    const kept = await pairOf(await refresh(other, first.refresh_token));
    expect(codeOf(await refresh(t.app, first.refresh_token))).toBe(11308);
    expect(codeOf(await refresh(t.app, kept.refresh_token)), 'the reuse revoked the sign-in').toBe(11308);
    // Refused at once by the instance that revoked it (the others within 5 s: the `bearer` scheme).
    expect(codeOf(await movements(t.app, (last as Pair).access_token))).toBe(10000);
  });

  it('a replay within the grace does not fork the sign-in: the branch it superseded, used past the grace, revokes it', async () => {
    for (const ownerFirst of [true, false]) {
      const first = await signIn(t.app, newLedgerUser(), seconds() + 3600);
      // The owner rotates; a thief replays the spent token within the grace (or the other way round).
      const a = await pairOf(await refresh(t.app, first.refresh_token));
      const b = await pairOf(await refresh(other, first.refresh_token));
      const [owner, thief] = ownerFirst ? [a, b] : [b, a];
      // The branch that came last goes on; the other is spent since the replay.
      const [live, superseded] = [b, a];
      clock.ms += (GRACE + 1) * 1000;
      const onward = await pairOf(await refresh(other, live.refresh_token));
      expect((await movements(t.app, onward.access_token)).statusCode).toBe(200);
      // The superseded branch, past the grace: a reuse. Every token of the sign-in is refused from then on.
      expect(codeOf(await refresh(t.app, superseded.refresh_token))).toBe(11308);
      expect(codeOf(await refresh(other, onward.refresh_token))).toBe(11308);
      for (const pair of [owner, thief, onward]) {
        const answer = await movements(t.app, pair.access_token);
        expect(answer.statusCode).toBe(401);
        expect(codeOf(answer)).toBe(10000);
      }
    }
  });

  it('within the grace, tabs that refresh in turn keep one live token; the one superseded last refreshes within the grace of its superseding', async () => {
    const first = await signIn(t.app, newLedgerUser(), seconds() + 3600);
    const a1 = await pairOf(await refresh(t.app, first.refresh_token));
    const b1 = await pairOf(await refresh(other, first.refresh_token));
    // Tab A had not seen B's pair yet: its own token, superseded a moment ago, is within the grace.
    clock.ms += 10_000;
    const a2 = await pairOf(await refresh(t.app, a1.refresh_token));
    // Tab B, 25 s after its pair was superseded: still within the grace; A's newest is superseded.
    clock.ms += 25_000;
    const b2 = await pairOf(await refresh(other, b1.refresh_token));
    expect(await unspentOf(t, [a1, b1, a2, b2])).toEqual([false, false, false, true]);
    // Past the grace of every replay, A's last branch is a reuse.
    clock.ms += (GRACE + 1) * 1000;
    expect(codeOf(await refresh(t.app, a2.refresh_token))).toBe(11308);
    expect(codeOf(await refresh(t.app, b2.refresh_token))).toBe(11308);
  });

  it('past the grace, a spent token revokes the sign-in: every pair issued since is refused', async () => {
    const user = newLedgerUser();
    const first = await signIn(t.app, user, seconds() + 3600);
    const kept = await signIn(t.app, user, seconds() + 3600);
    const rotated = await pairOf(await refresh(t.app, first.refresh_token));
    const replayed = await pairOf(await refresh(t.app, first.refresh_token));
    clock.ms += (GRACE + 1) * 1000;
    expect(codeOf(await refresh(other, first.refresh_token))).toBe(11308);
    for (const pair of [rotated, replayed]) {
      expect(codeOf(await refresh(t.app, pair.refresh_token))).toBe(11308);
      const answer = await movements(other, pair.access_token);
      expect(answer.statusCode).toBe(401);
      expect(codeOf(answer)).toBe(10000);
    }
    // The account's other sign-in is not touched.
    expect((await movements(t.app, kept.access_token)).statusCode).toBe(200);
    await pairOf(await refresh(t.app, kept.refresh_token));
  });

  it('a sign-in revoked within the grace stays revoked: its spent token gets nothing', async () => {
    const first = await signIn(t.app, newLedgerUser(), seconds() + 3600);
    const rotated = await pairOf(await refresh(t.app, first.refresh_token));
    expect((await revoke(other, rotated.refresh_token)).statusCode).toBe(200);
    expect(codeOf(await refresh(t.app, first.refresh_token))).toBe(11308);
    expect(codeOf(await refresh(other, first.refresh_token))).toBe(11308);
    // Refused at once by the instance that revoked it (the others within 5 s: the `bearer` scheme).
    expect(codeOf(await movements(other, rotated.access_token))).toBe(10000);
  });

  it('within the grace, a pair whose token cannot be stored is a server error that writes nothing; tried again, it is given', async () => {
    const first = await signIn(t.app, newLedgerUser(), seconds() + 3600);
    await pairOf(await refresh(t.app, first.refresh_token));
    await refusingRefreshTokens(t, kind, async () => {
      const failed = await refresh(other, first.refresh_token);
      expect(failed.statusCode, failed.body).toBe(500);
    });
    // The sign-in was not revoked by the failure: the replay, tried again within the grace, gets its pair.
    const again = await pairOf(await refresh(other, first.refresh_token));
    expect((await movements(t.app, again.access_token)).statusCode).toBe(200);
  });

  it('a spent token presented with another client id is refused and left as it was, within the grace and past it', async () => {
    const first = await signIn(t.app, newLedgerUser(), seconds() + 3600);
    const rotated = await pairOf(await refresh(t.app, first.refresh_token));
    expect(codeOf(await refresh(t.app, first.refresh_token, 'wx.network'))).toBe(11308);
    // Nothing was revoked: the live pair works, and the spent token still replays with its own client.
    expect((await movements(other, rotated.access_token)).statusCode).toBe(200);
    const replayed = await pairOf(await refresh(other, first.refresh_token));
    clock.ms += (GRACE + 1) * 1000;
    // Past the grace, another client's reuse is refused too and revokes nothing; the owner's refresh works.
    expect(codeOf(await refresh(t.app, first.refresh_token, 'wx.network'))).toBe(11308);
    expect(codeOf(await refresh(t.app, rotated.refresh_token, 'wx.network'))).toBe(11308);
    const next = await pairOf(await refresh(other, replayed.refresh_token));
    expect((await movements(t.app, next.access_token)).statusCode).toBe(200);
    // The token's own client presenting it past the grace is a reuse, as before.
    expect(codeOf(await refresh(t.app, first.refresh_token))).toBe(11308);
    expect(codeOf(await refresh(t.app, next.refresh_token))).toBe(11308);
  });

  it('concurrent refreshes of one token within the grace (two instances): every one gets a pair of the sign-in', async () => {
    for (let round = 0; round < 3; round++) {
      const { refresh_token } = await signIn(t.app, newLedgerUser(), seconds() + 600);
      const results = await Promise.all([t.app, other, t.app, other].map((app) => refresh(app, refresh_token)));
      const pairs = await Promise.all(results.map(pairOf));
      expect(new Set(pairs.map((p) => p.refresh_token)).size).toBe(4);
      // Four pairs, one live refresh token: the one stored last.
      expect((await unspentOf(t, pairs)).filter(Boolean)).toHaveLength(1);
      // One sign-in: a sign-out through any of its refresh tokens ends all of them.
      expect((await revoke(t.app, (pairs[2] as Pair).refresh_token)).statusCode).toBe(200);
      for (const pair of pairs) expect(codeOf(await refresh(other, pair.refresh_token))).toBe(11308);
    }
  });

  it('with a grace of 0, a replay at once revokes the sign-in, the pair it was rotated into included', async () => {
    const first = await signIn(strict.app, newLedgerUser());
    const rotated = await pairOf(await refresh(strict.app, first.refresh_token));
    expect(codeOf(await refresh(strict.app, first.refresh_token))).toBe(11308);
    expect(codeOf(await refresh(strict.app, rotated.refresh_token))).toBe(11308);
    expect(codeOf(await movements(strict.app, rotated.access_token))).toBe(10000);
  });

  it('with a grace of 0, concurrent refreshes of one token (two instances): one wins, and the sign-in is revoked', async () => {
    const second = await strict.another();
    for (let round = 0; round < 5; round++) {
      const { refresh_token } = await signIn(strict.app, newLedgerUser());
      const results = await Promise.all(
        [strict.app, second, strict.app, second].map((app) => refresh(app, refresh_token)),
      );
      const winners = results.filter((r) => r.statusCode === 200);
      expect(winners).toHaveLength(1);
      for (const loser of results.filter((r) => r.statusCode !== 200)) expect(codeOf(loser)).toBe(11308);
      // The losers presented a spent token: the sign-in is revoked, the winner's new pair included.
      expect(codeOf(await refresh(strict.app, winners[0]?.json().refresh_token))).toBe(11308);
    }
  });
});
