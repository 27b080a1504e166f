/**
 * Revocation reaches access tokens: a sign-in (token family) revoked by reuse detection or by
 * `POST /v1/oauth2/revoke` has its access tokens refused, at once on the instance that revoked it and within
 * the spec's bound (5 s) on another instance of the same PostgreSQL database; a restarted instance knows the
 * revocations made before it started. A revocation also ends the account's passwords up to the sign-in's
 * expiry (test/handlers/token-sign-out.test.ts): each sign-in revoked here is of an account of its own.
 */
import { generateKeyPairSync } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { SignJWT } from 'jose';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSecrets } from '../../src/secrets.js';
import { codeOf, postToken, signIn, type TestApp, testApp } from '../support/app.js';
import { DATABASES } from '../support/databases.js';
import { me, newLedgerUser, someoneElse } from '../support/signers.js';

/** The spec's bound on how late another instance may learn of a revocation. */
const BOUND_MS = 5000;

const movements = (app: FastifyInstance, accessToken: string) =>
  app.inject({ url: '/v1/movements?limit=1', headers: { authorization: `Bearer ${accessToken}` } });

const refresh = (app: FastifyInstance, refreshToken: string) =>
  postToken(app, {
    grant_type: 'refresh_token',
    scope: 'general',
    client_id: 'waves.exchange',
    refresh_token: refreshToken,
  });

function revoke(app: FastifyInstance, fields: Record<string, string>, as: 'form' | 'json' = 'form') {
  return app.inject({
    method: 'POST',
    url: '/v1/oauth2/revoke',
    headers: { 'content-type': as === 'form' ? 'application/x-www-form-urlencoded' : 'application/json' },
    payload: as === 'form' ? new URLSearchParams(fields).toString() : JSON.stringify(fields),
  });
}

/** Waits until `app` refuses `accessToken` with 401/10000; how long it took (fails past the bound). */
async function refusedWithin(app: FastifyInstance, accessToken: string, boundMs = BOUND_MS): Promise<number> {
  const start = Date.now();
  for (;;) {
    const response = await movements(app, accessToken);
    if (response.statusCode === 401) {
      expect(codeOf(response)).toBe(10000);
      return Date.now() - start;
    }
    expect(response.statusCode).toBe(200);
    if (Date.now() - start > boundMs) throw new Error(`still accepted ${boundMs} ms after the revocation`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Replays revoke at once here (no reuse grace: test/handlers/token-replays.test.ts covers the grace). */
const NO_GRACE = { refreshReuseGraceSeconds: 0 };

describe.each(DATABASES)('revocation on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp(kind, { demo: true, config: NO_GRACE });
  });
  afterAll(() => t.close());

  it('a replayed refresh token revokes the access tokens of its whole sign-in, not other sign-ins', async () => {
    const user = newLedgerUser();
    const first = await signIn(t.app, user);
    const otherDevice = await signIn(t.app, user);
    const rotated = (await refresh(t.app, first.refresh_token)).json();
    expect((await movements(t.app, rotated.access_token)).statusCode).toBe(200);
    // A thief replays the spent refresh token: the family is revoked.
    expect(codeOf(await refresh(t.app, first.refresh_token))).toBe(11308);
    for (const token of [first.access_token, rotated.access_token]) {
      const response = await movements(t.app, token);
      expect(response.statusCode).toBe(401);
      expect(codeOf(response)).toBe(10000);
    }
    // Another sign-in of the same account is not touched.
    expect((await movements(t.app, otherDevice.access_token)).statusCode).toBe(200);
    expect((await refresh(t.app, otherDevice.refresh_token)).statusCode).toBe(200);
  });

  it('POST /v1/oauth2/revoke with a refresh token signs that device out: refresh and access tokens refused', async () => {
    const device = await signIn(t.app, newLedgerUser());
    const kept = await signIn(t.app, someoneElse);
    const response = await revoke(t.app, { token: device.refresh_token, token_type_hint: 'refresh_token' });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({});
    expect(response.headers['cache-control']).toBe('no-store');
    expect(codeOf(await movements(t.app, device.access_token))).toBe(10000);
    expect(codeOf(await refresh(t.app, device.refresh_token))).toBe(11308);
    expect((await movements(t.app, kept.access_token)).statusCode).toBe(200);
  });

  it('revokes by access token too, whatever the hint says, and as JSON', async () => {
    for (const [hint, as] of [
      ['access_token', 'form'],
      ['refresh_token', 'form'],
      [undefined, 'json'],
    ] as const) {
      const device = await signIn(t.app, newLedgerUser());
      const fields: Record<string, string> = { token: device.access_token, ...(hint ? { token_type_hint: hint } : {}) };
      const response = await revoke(t.app, fields, as);
      expect(response.statusCode, `${hint} ${as}: ${response.body}`).toBe(200);
      expect(codeOf(await movements(t.app, device.access_token))).toBe(10000);
      expect(codeOf(await refresh(t.app, device.refresh_token))).toBe(11308);
    }
    // A refresh token with the access-token hint is found as well.
    const device = await signIn(t.app, newLedgerUser());
    expect((await revoke(t.app, { token: device.refresh_token, token_type_hint: 'access_token' })).statusCode).toBe(
      200,
    );
    expect(codeOf(await movements(t.app, device.access_token))).toBe(10000);
  });

  it('answers 200 for a token it did not issue (RFC 7009) and changes nothing', async () => {
    const device = await signIn(t.app, newLedgerUser());
    const foreign = await new SignJWT({
      a: me.address,
      nb: 'W',
      cid: 'waves.exchange',
      user_name: me.username,
      jti: 'x',
      sid: 'f',
    })
      .setProtectedHeader({ alg: 'EdDSA', kid: 'other' })
      .setExpirationTime('1h')
      .sign(generateKeyPairSync('ed25519').privateKey);
    for (const token of [`rt_${'A'.repeat(43)}`, 'not a token at all', foreign, `${device.access_token}x`]) {
      const response = await revoke(t.app, { token });
      expect(response.statusCode, `${token}: ${response.body}`).toBe(200);
      expect(response.json()).toEqual({});
    }
    expect((await movements(t.app, device.access_token)).statusCode).toBe(200);
    expect((await refresh(t.app, device.refresh_token)).statusCode).toBe(200);
  });

  it.each([
    ['no token', {}, 10200],
    ['an empty token', { token: '' }, 10201],
    ['an unknown hint', { token: 'x', token_type_hint: 'id_token' }, 10201],
    ['a client id it does not accept', { token: 'x', client_id: 'evil.example' }, 11302],
  ])('refuses %s with 400 and its code', async (_name, fields, code) => {
    const response = await revoke(t.app, fields as Record<string, string>);
    expect(response.statusCode, response.body).toBe(400);
    expect(codeOf(response)).toBe(code);
  });

  it('an instance started after a revocation knows of it (it reads them from the database)', async () => {
    const device = await signIn(t.app, newLedgerUser());
    expect((await revoke(t.app, { token: device.refresh_token })).statusCode).toBe(200);
    const restarted = await t.another();
    expect(codeOf(await movements(restarted, device.access_token))).toBe(10000);
  });
});

describe('revocation across instances on postgres', () => {
  let t: TestApp;
  let other: FastifyInstance;
  beforeAll(async () => {
    t = await testApp('postgres', { demo: true, config: NO_GRACE });
    other = await t.another();
  });
  afterAll(() => t.close());

  it('a revocation at one instance reaches the access tokens another instance had accepted, within the bound', async () => {
    const device = await signIn(t.app, newLedgerUser());
    // The other instance has verified (and cached) the token before the revocation.
    expect((await movements(other, device.access_token)).statusCode).toBe(200);
    expect((await revoke(t.app, { token: device.refresh_token })).statusCode).toBe(200);
    const took = await refusedWithin(other, device.access_token);
    expect(took).toBeLessThan(BOUND_MS);
  });

  it('reuse detected at one instance reaches the other', async () => {
    const first = await signIn(other, newLedgerUser());
    expect((await movements(other, first.access_token)).statusCode).toBe(200);
    expect((await refresh(t.app, first.refresh_token)).statusCode).toBe(200);
    expect(codeOf(await refresh(t.app, first.refresh_token))).toBe(11308);
    await refusedWithin(other, first.access_token);
  });

  it('a revocation made while an instance was not listening is read when it listens again', async () => {
    const device = await signIn(t.app, newLedgerUser());
    // Cut the other instance's listening connection; revoke while it reconnects.
    const cut = await sql<{ cut: boolean }>`select pg_terminate_backend(pid) as cut from pg_stat_activity
      where query = 'listen "revoked_' || current_schema() || '"'`.execute(t.store.db);
    expect(cut.rows.length).toBe(2);
    expect((await revoke(t.app, { token: device.refresh_token })).statusCode).toBe(200);
    await refusedWithin(other, device.access_token);
  });
});

describe('tokens without a sign-in claim', () => {
  it('an access token issued before revocation existed (no sid) is still accepted until it expires', async () => {
    const t = await testApp('sqlite', { demo: true });
    try {
      const { signingKey, keyId } = loadSecrets(t.config, () => {});
      const legacy = await new SignJWT({
        a: me.address,
        nb: 'W',
        cid: 'waves.exchange',
        user_name: me.username,
        pk: me.username,
        jti: 'legacy',
        scope: ['general'],
      })
        .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT', kid: keyId })
        .setExpirationTime('1h')
        .sign(signingKey);
      expect((await movements(t.app, legacy)).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });
});
