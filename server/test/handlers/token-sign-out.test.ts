/**
 * No replay after sign-out: once a sign-in is revoked, its password, and every password of the account signed
 * for an expiry at or before the sign-in's own, is refused (400, 11309) on every instance; a password with a
 * later expiry signs in again, and other sign-ins and accounts are not affected.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeOf, passwordFields, postToken, type TestApp, testApp } from '../support/app.js';
import { DATABASES } from '../support/databases.js';
import { type LedgerUser, newLedgerUser } from '../support/signers.js';

const WEEK = 604_800;
const SIGNED_OUT = 11309;

const revoke = (app: FastifyInstance, token: string, hint?: 'access_token' | 'refresh_token') =>
  app.inject({
    method: 'POST',
    url: '/v1/oauth2/revoke',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ token, ...(hint ? { token_type_hint: hint } : {}) }).toString(),
  });

const refresh = (app: FastifyInstance, token: string) =>
  postToken(app, { grant_type: 'refresh_token', scope: 'general', client_id: 'waves.exchange', refresh_token: token });

const use = (app: FastifyInstance, token: string) =>
  app.inject({ url: '/v1/movements?limit=1', headers: { authorization: `Bearer ${token}` } });

/** The password grant with `password`, its fields in the query string as deployed clients send them. */
const grantInQuery = (app: FastifyInstance, user: LedgerUser, password: string) =>
  app.inject({
    method: 'POST',
    url: `/v1/oauth2/token?${new URLSearchParams(passwordFields(user, password))}`,
    headers: { 'content-type': 'application/json' },
  });

describe.each(DATABASES)('passwords after a sign-out on %s', (kind) => {
  // The server's clock, moved by the tests: every password here is signed against it.
  const clock = { seconds: Math.floor(Date.now() / 1000) };
  let t: TestApp;
  let other: FastifyInstance;
  beforeAll(async () => {
    t = await testApp(kind, { demo: true, now: () => clock.seconds * 1000 });
    // Another instance on the same database (on SQLite, another app over the same file: the same rule).
    other = await t.another();
  });
  afterAll(() => t.close());

  /** Signs `user` in with a password for `expiry`; returns the pair and the password string. */
  async function signIn(user: LedgerUser, expiry: number, app = t.app) {
    const password = user.password(expiry);
    const response = await postToken(app, passwordFields(user, password));
    expect(response.statusCode, response.body).toBe(200);
    return { password, ...(response.json() as { access_token: string; refresh_token: string; expires_in: number }) };
  }

  async function expectSignedOut(response: Awaited<ReturnType<typeof postToken>>) {
    expect(response.statusCode, response.body).toBe(400);
    expect(codeOf(response)).toBe(SIGNED_OUT);
    expect(response.json().errors[0].message).toMatch(/sign a new password with a later expiry\.$/);
    expect(response.headers['cache-control']).toBe('no-store');
  }

  it('the same password string after a revoke: refused on both instances, in the body and in the query string', async () => {
    const user = newLedgerUser();
    const expiry = clock.seconds + WEEK;
    const first = await signIn(user, expiry);
    expect((await revoke(t.app, first.refresh_token, 'refresh_token')).statusCode).toBe(200);
    expect((await use(t.app, first.access_token)).statusCode).toBe(401);
    for (const app of [t.app, other]) {
      await expectSignedOut(await postToken(app, passwordFields(user, first.password)));
      await expectSignedOut(await grantInQuery(app, user, first.password));
    }
    // Nothing was started for the refused grants: the account's only sign-in is the revoked one.
    const families = await t.store.db
      .selectFrom('token_families')
      .select('revoked_at')
      .where('account', '=', user.address)
      .execute();
    expect(families).toHaveLength(1);
    expect(families[0]?.revoked_at).not.toBeNull();
  });

  it('refuses the same expiry freshly signed and an earlier one; a later one signs in again, on either instance', async () => {
    const user = newLedgerUser();
    const expiry = clock.seconds + 3600;
    const first = await signIn(user, expiry, other);
    expect((await revoke(other, first.access_token, 'access_token')).statusCode).toBe(200);
    for (const app of [t.app, other]) {
      await expectSignedOut(await postToken(app, passwordFields(user, user.password(expiry))));
      await expectSignedOut(await postToken(app, passwordFields(user, user.password(expiry - 1))));
      await expectSignedOut(await postToken(app, passwordFields(user, user.password(clock.seconds + 60))));
    }
    const again = await signIn(user, expiry + 1);
    const elsewhere = await signIn(user, expiry + 2, other);
    for (const app of [t.app, other]) {
      expect((await use(app, again.access_token)).statusCode).toBe(200);
      expect((await use(app, elsewhere.access_token)).statusCode).toBe(200);
    }
    expect((await refresh(other, again.refresh_token)).statusCode).toBe(200);
  });

  it('a client signing now + 1 week signs in again one second after its sign-out, not in the same second', async () => {
    const user = newLedgerUser();
    const first = await signIn(user, clock.seconds + WEEK);
    expect((await revoke(t.app, first.refresh_token)).statusCode).toBe(200);
    await expectSignedOut(await postToken(t.app, passwordFields(user, user.password(clock.seconds + WEEK))));
    clock.seconds += 1;
    await signIn(user, clock.seconds + WEEK);
  });

  it("leaves the account's other sign-ins and other accounts alone", async () => {
    const [user, neighbour] = [newLedgerUser(), newLedgerUser()];
    const earlier = await signIn(user, clock.seconds + 600);
    const revoked = await signIn(user, clock.seconds + 1200);
    const theirs = await signIn(neighbour, clock.seconds + 600);
    expect((await revoke(t.app, revoked.refresh_token)).statusCode).toBe(200);
    // The account's earlier sign-in lives on (its password, expiring before, is refused like any other).
    expect((await use(other, earlier.access_token)).statusCode).toBe(200);
    expect((await refresh(other, earlier.refresh_token)).statusCode).toBe(200);
    await expectSignedOut(await postToken(t.app, passwordFields(user, earlier.password)));
    // Another account's passwords, of any expiry, are its own.
    expect((await postToken(other, passwordFields(neighbour, theirs.password))).statusCode).toBe(200);
    expect((await postToken(t.app, passwordFields(neighbour, neighbour.password(clock.seconds + 60)))).statusCode).toBe(
      200,
    );
  });

  it("holds the sign-in's signed expiry, not its refreshed access token's, and never lowers it", async () => {
    const user = newLedgerUser();
    const start = clock.seconds;
    const late = await signIn(user, start + 600);
    const early = await signIn(user, start + 300);
    clock.seconds += 200;
    // Refreshed, the late sign-in's access token expires at start + 800; its password still at start + 600.
    const refreshed = await refresh(t.app, late.refresh_token);
    expect(refreshed.json().expires_in).toBe(start + 800);
    expect((await revoke(other, refreshed.json().refresh_token)).statusCode).toBe(200);
    await expectSignedOut(await postToken(t.app, passwordFields(user, user.password(start + 600))));
    // Revoking the earlier sign-in afterwards does not lower the bound.
    expect((await revoke(t.app, early.refresh_token)).statusCode).toBe(200);
    await expectSignedOut(await postToken(other, passwordFields(user, user.password(start + 450))));
    await signIn(user, start + 601);
  });

  it('reuse detection ends the password too: a stolen refresh token and its password are both dead', async () => {
    const user = newLedgerUser();
    const victim = await signIn(user, clock.seconds + 3600);
    expect((await refresh(other, victim.refresh_token)).statusCode).toBe(200);
    // Replayed past the reuse grace (within it, it is taken for another tab of the user's).
    clock.seconds += t.config.refreshReuseGraceSeconds + 1;
    expect(codeOf(await refresh(t.app, victim.refresh_token))).toBe(11308);
    await expectSignedOut(await postToken(other, passwordFields(user, victim.password)));
    await signIn(user, clock.seconds + 3601);
  });

  it('counts the refusals by reason, and a revoke of what is no token of ours ends nothing', async () => {
    const user = newLedgerUser();
    const first = await signIn(user, clock.seconds + 600);
    expect((await revoke(t.app, `rt_${'A'.repeat(43)}`)).statusCode).toBe(200);
    expect((await revoke(t.app, first.password)).statusCode).toBe(200);
    expect((await postToken(t.app, passwordFields(user, first.password))).statusCode).toBe(200);
    await revoke(t.app, first.refresh_token);
    await expectSignedOut(await postToken(t.app, passwordFields(user, first.password)));
    const metrics = (await t.app.inject({ url: '/metrics' })).body;
    expect(metrics).toMatch(/gateway_token_refusals_total\{reason="password_signed_out"\} [1-9]/);
  });
});
