/** POST /v1/oauth2/token and the bearer check, end to end in-process. */

import { generateKeyPairSync, type KeyObject, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { MAX_LIFETIME_SECONDS } from '@gateway/ledger';
import bs58 from 'bs58';
import { jwtVerify, SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { CLOCK_SKEW_SECONDS } from '../../src/domain/password.js';
import { loadSecrets } from '../../src/secrets.js';
import { codeOf, signIn, type TestApp, testApp } from '../support/app.js';
import { DATABASES } from '../support/databases.js';
import { refusingRefreshTokens } from '../support/refusing.js';
import { DEMO_SEED, ethUser, ledgerUser, newLedgerUser } from '../support/signers.js';

const me = ledgerUser(DEMO_SEED);
const now = () => Math.floor(Date.now() / 1000);

function tokenRequest(t: TestApp, fields: Record<string, string>, where: 'body' | 'query' = 'body') {
  const form = new URLSearchParams(fields).toString();
  return where === 'body'
    ? t.app.inject({
        method: 'POST',
        url: '/v1/oauth2/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: form,
      })
    : t.app.inject({
        method: 'POST',
        url: `/v1/oauth2/token?${form}`,
        headers: { 'content-type': 'application/json' },
      });
}

const passwordGrant = (username: string, password: string, extra: Record<string, string> = {}) => ({
  grant_type: 'password',
  scope: 'general',
  username,
  password,
  client_id: 'waves.exchange',
  ...extra,
});

const refreshGrant = (refreshToken: string, clientId = 'waves.exchange') => ({
  grant_type: 'refresh_token',
  scope: 'general',
  client_id: clientId,
  refresh_token: refreshToken,
});

describe.each(DATABASES)('tokens on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp(kind, { demo: true });
  });
  afterAll(() => t.close());

  it('the password grant issues an EdDSA JWT expiring at the signed expiry, with the real claims', async () => {
    const expiry = now() + 3600;
    const response = await tokenRequest(t, passwordGrant(me.username, me.password(expiry)));
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const body = response.json();
    expect(body).toMatchObject({ token_type: 'bearer', expires_in: expiry });
    const [header, payload] = body.access_token
      .split('.')
      .slice(0, 2)
      .map((part: string) => JSON.parse(Buffer.from(part, 'base64url').toString()));
    const { verifyingKeys, keyId } = loadSecrets(t.config, () => {});
    const verifyingKey = verifyingKeys.get(keyId);
    if (!verifyingKey) throw new Error('no current key');
    expect(header).toEqual({ alg: 'EdDSA', typ: 'JWT', kid: keyId });
    // A JWS that a standard library (jose) verifies with the server's public key, claims as signed.
    const verified = await jwtVerify(body.access_token, verifyingKey, { algorithms: ['EdDSA'], typ: 'JWT' });
    expect(verified.payload).toEqual(payload);
    expect(verified.payload.sub).toBe(me.address);
    expect(verified.payload.iat).toBeLessThanOrEqual(now());
    expect(payload).toMatchObject({
      a: me.address,
      nb: 'W',
      user_name: me.username,
      pk: me.username,
      cid: 'waves.exchange',
      scope: ['general'],
      exp: expiry,
    });
    expect(payload.lt).toBeGreaterThan(3590);
    expect(typeof payload.jti).toBe('string');
    expect(body.refresh_token).toMatch(/^rf_[0-9a-f-]{36}\.0\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/);
  });

  it('accepts the parameters in the query string with an empty JSON body, and wx.network', async () => {
    const expiry = now() + 600;
    const response = await tokenRequest(
      t,
      passwordGrant(me.username, me.password(expiry, { clientId: 'wx.network' }), { client_id: 'wx.network' }),
      'query',
    );
    expect(response.statusCode, response.body).toBe(200);
  });

  it('an empty JSON body sent chunked (no length said in advance) is no body: the query string is read', async () => {
    const fields = passwordGrant(me.username, me.password(now() + 600));
    const response = await t.app.inject({
      method: 'POST',
      url: `/v1/oauth2/token?${new URLSearchParams(fields)}`,
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      payload: Readable.from([]),
    });
    expect(response.statusCode, response.body).toBe(200);
  });

  it('a body that carries no parameter ({} in JSON, separators in a form) is no body: the query string is read', async () => {
    const fields = passwordGrant(me.username, me.password(now() + 600));
    const url = `/v1/oauth2/token?${new URLSearchParams(fields)}`;
    for (const [type, payload] of [
      ['application/json', '{}'],
      ['application/json; charset=utf-8', ' { } '],
      ['application/x-www-form-urlencoded', '&'],
    ]) {
      const response = await t.app.inject({ method: 'POST', url, headers: { 'content-type': type }, payload });
      expect(response.statusCode, `${type} ${payload}: ${response.body}`).toBe(200);
    }
    // A refresh in the query string with {} is a refresh, and counted as one.
    const before = await t.app.inject({ url: '/metrics' });
    const granted = (text: string) =>
      Number(/gateway_token_grants_total\{grant="refresh_token"\} (\d+)/.exec(text)?.[1] ?? 0);
    const { refresh_token } = await signIn(t.app, me, now() + 600);
    const refreshed = await t.app.inject({
      method: 'POST',
      url: `/v1/oauth2/token?${new URLSearchParams(refreshGrant(refresh_token))}`,
      headers: { 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    const after = await t.app.inject({ url: '/metrics' });
    expect(granted(after.body)).toBe(granted(before.body) + 1);
    // A body with any parameter is a complete request and wins over the query string.
    const partial = await t.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json' },
      payload: '{"scope":"general"}',
    });
    expect(partial.statusCode).toBe(400);
    expect(codeOf(partial)).toBe(10200);
  });

  it('accepts a signature for an expiry exactly one week ahead, sent a moment later', async () => {
    const expiry = now() + MAX_LIFETIME_SECONDS + 5;
    const response = await tokenRequest(t, passwordGrant(me.username, me.password(expiry)));
    expect(response.statusCode, response.body).toBe(200);
  });

  it('an Ethereum-style account signs EIP-712, gets a token for its ledger address, and uses it', async () => {
    const user = ethUser('W');
    const response = await tokenRequest(t, passwordGrant(user.username, user.password(now() + 600)));
    expect(response.statusCode, response.body).toBe(200);
    const { access_token } = response.json();
    const claims = JSON.parse(Buffer.from(access_token.split('.')[1], 'base64url').toString());
    expect(claims.a).toBe(user.address);
    const movements = await t.app.inject({
      url: '/v1/movements',
      headers: { authorization: `Bearer ${access_token}` },
    });
    expect(movements.statusCode).toBe(200);
    expect(movements.json().items).toEqual([]);
    // The same account typed in lower case is the same account.
    const lower = await tokenRequest(t, passwordGrant(user.username.toLowerCase(), user.password(now() + 600)));
    expect(lower.statusCode).toBe(200);
  });

  const refusals: [string, () => Record<string, string>, number][] = [
    ['scope other than general', () => passwordGrant(me.username, me.password(now() + 60), { scope: 'admin' }), 11301],
    [
      'unknown client id',
      () => passwordGrant(me.username, me.password(now() + 60, { clientId: 'evil.app' }), { client_id: 'evil.app' }),
      11302,
    ],
    ['username not base58', () => passwordGrant('0OIl', me.password(now() + 60)), 11303],
    [
      'username of 31 bytes',
      () => passwordGrant('4KxUVD9NtyRJjU3BCvPgJSttoJX7cb3DMdDTNucLN12', me.password(now() + 60)),
      11303,
    ],
    [
      'mixed-case 0x username with a bad checksum',
      () => passwordGrant('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD', '1:0x00'),
      11303,
    ],
    ['password without a colon', () => passwordGrant(me.username, 'nocolon'), 11304],
    ['expiry with a sign', () => passwordGrant(me.username, me.password(`+${now() + 60}`)), 11304],
    ['expiry in hex', () => passwordGrant(me.username, me.password('0x6a000000')), 11304],
    ['signature not base58', () => passwordGrant(me.username, `${now() + 60}:0OIl`), 11304],
    ['signature of 63 bytes', () => passwordGrant(me.username, `${now() + 60}:${'2'.repeat(86)}`), 11304],
    ['expiry in the past', () => passwordGrant(me.username, me.password(now() - 1)), 11305],
    [
      'expiry more than a week (plus skew) ahead',
      () => passwordGrant(me.username, me.password(now() + MAX_LIFETIME_SECONDS + CLOCK_SKEW_SECONDS + 60)),
      11306,
    ],
    [
      'signature over another chain id',
      () => passwordGrant(me.username, me.password(now() + 60, { chainId: 'T' })),
      11307,
    ],
    [
      'signature over another client id',
      () => passwordGrant(me.username, me.password(now() + 60, { clientId: 'wx.network' })),
      11307,
    ],
    [
      'signature without the ledger prefix',
      () => passwordGrant(me.username, me.password(now() + 60, { prefix: false })),
      11307,
    ],
    [
      'signature by another key',
      () => passwordGrant(me.username, ledgerUser(DEMO_SEED, 'W', 1).password(now() + 60)),
      11307,
    ],
    [
      'expiry re-formatted after signing (leading zero)',
      () => {
        const expiry = now() + 60;
        return passwordGrant(me.username, `0${me.password(expiry)}`);
      },
      11307,
    ],
    [
      'small-order public key (u = 0)',
      () => passwordGrant('11111111111111111111111111111111', `${now() + 60}:${bs58.encode(randomBytes(64))}`),
      11307,
    ],
    [
      'EIP-712 signature of another account',
      () => {
        const a = ethUser('W');
        const b = ethUser('W');
        return passwordGrant(a.username, b.password(now() + 60));
      },
      11307,
    ],
    [
      'missing password',
      () => ({ grant_type: 'password', scope: 'general', username: me.username, client_id: 'waves.exchange' }),
      10200,
    ],
    [
      'unknown grant type',
      () => ({ grant_type: 'client_credentials', scope: 'general', client_id: 'waves.exchange' }),
      11300,
    ],
  ];

  it.each(refusals)('refuses %s (code %#)', async (_name, fields, code) => {
    for (const where of ['body', 'query'] as const) {
      const response = await tokenRequest(t, fields(), where);
      expect(response.statusCode, `${where}: ${response.body}`).toBe(400);
      expect(codeOf(response)).toBe(code);
      expect(response.headers['cache-control']).toBe('no-store');
    }
  });

  it('refreshes: rotation, same lifetime from now, a new refresh token each time', async () => {
    const first = await signIn(t.app, newLedgerUser(), now() + 1800);
    const second = await tokenRequest(t, refreshGrant(first.refresh_token));
    expect(second.statusCode, second.body).toBe(200);
    const pair = second.json();
    expect(pair.refresh_token).not.toBe(first.refresh_token);
    expect(pair.access_token).not.toBe(first.access_token);
    expect(pair.expires_in).toBeGreaterThanOrEqual(first.expires_in - 2);
    const third = await tokenRequest(t, refreshGrant(pair.refresh_token));
    expect(third.statusCode, third.body).toBe(200);
    expect(third.json().refresh_token).not.toBe(pair.refresh_token);
  });

  it('a refresh token only works with its own client id, and another client cannot spend it', async () => {
    const first = await signIn(t.app, me, now() + 600);
    const other = await tokenRequest(t, refreshGrant(first.refresh_token, 'wx.network'));
    expect(codeOf(other)).toBe(11308);
    // Refused, not spent: its own client still refreshes with it (once).
    const own = await tokenRequest(t, refreshGrant(first.refresh_token));
    expect(own.statusCode, own.body).toBe(200);
  });

  it('a password grant whose refresh token cannot be stored leaves no token family behind', async () => {
    const count = async () =>
      Number(
        (
          await t.store.db
            .selectFrom('token_families')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count();
    await refusingRefreshTokens(t, kind, async () => {
      const response = await tokenRequest(t, passwordGrant(me.username, me.password(now() + 600)));
      expect(response.statusCode, response.body).toBe(500);
      expect(await count()).toBe(before);
    });
    const response = await tokenRequest(t, passwordGrant(me.username, me.password(now() + 600)));
    expect(response.statusCode, response.body).toBe(200);
    expect(await count()).toBe(before + 1);
  });

  it('a refresh whose new token cannot be stored leaves the presented token unspent', async () => {
    const first = await signIn(t.app, me, now() + 600);
    await refusingRefreshTokens(t, kind, async () => {
      const response = await tokenRequest(t, refreshGrant(first.refresh_token));
      expect(response.statusCode, response.body).toBe(500);
    });
    // Not spent, and its family not revoked: the retry succeeds, and the token is spent by it.
    const retry = await tokenRequest(t, refreshGrant(first.refresh_token));
    expect(retry.statusCode, retry.body).toBe(200);
    const again = await tokenRequest(t, refreshGrant(retry.json().refresh_token));
    expect(again.statusCode, again.body).toBe(200);
  });

  it('another instance accepts the token (verification needs no database state)', async () => {
    const second = await t.another();
    const { access_token } = await signIn(t.app, me);
    const response = await second.inject({
      url: '/v1/movements?limit=1',
      headers: { authorization: `Bearer ${access_token}` },
    });
    expect(response.statusCode).toBe(200);
  });
});

describe('the bearer check', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await testApp('sqlite', { demo: true });
    token = (await signIn(t.app, me)).access_token;
  });
  afterAll(() => t.close());

  const movements = (authorization?: string) =>
    t.app.inject({ url: '/v1/movements', headers: authorization === undefined ? {} : { authorization } });

  it('accepts a valid token', async () => {
    expect((await movements(`Bearer ${token}`)).statusCode).toBe(200);
  });

  it.each([
    ['no header', () => undefined],
    ['another scheme', () => `Basic ${token}`],
    ['garbage', () => 'Bearer not.a.jwt!'],
    [
      'a tampered claim',
      () => {
        const [h, p, s] = token.split('.');
        const claims = JSON.parse(Buffer.from(p ?? '', 'base64url').toString());
        claims.a = '3PQ4nHEVPtvd4TDP77H7BSdDddyxLs9gQ67';
        return `Bearer ${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${s}`;
      },
    ],
    [
      'alg none',
      () =>
        `Bearer ${new UnsecuredJWT({ a: me.address, nb: 'W', cid: 'waves.exchange', user_name: me.username, jti: 'x' }).setExpirationTime('1h').encode()}`,
    ],
  ])('refuses %s with 401, code 10000 and WWW-Authenticate', async (_name, make) => {
    const response = await movements(make());
    expect(response.statusCode).toBe(401);
    expect(codeOf(response)).toBe(10000);
    expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
  });

  it('refuses a token of another server key, an HMAC token keyed with the public key, and an expired one', async () => {
    const claims = {
      a: me.address,
      nb: 'W',
      cid: 'waves.exchange',
      user_name: me.username,
      jti: 'x',
      scope: ['general'],
    };
    const otherKey = generateKeyPairSync('ed25519').privateKey;
    const foreign = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'EdDSA' })
      .setExpirationTime('1h')
      .sign(otherKey);
    expect((await movements(`Bearer ${foreign}`)).statusCode).toBe(401);
    const publicDer = new Uint8Array(Buffer.from(token.split('.')[0] ?? ''));
    const hmac = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(publicDer);
    expect((await movements(`Bearer ${hmac}`)).statusCode).toBe(401);
  });

  it('an access token stops working at its expiry', async () => {
    let clock = Date.now();
    const timed = await testApp('sqlite', { demo: true, now: () => clock });
    try {
      const expiry = Math.floor(clock / 1000) + 120;
      const { access_token } = await signIn(timed.app, me, expiry);
      const call = () =>
        timed.app.inject({ url: '/v1/movements', headers: { authorization: `Bearer ${access_token}` } });
      expect((await call()).statusCode).toBe(200);
      clock = (expiry + 1) * 1000;
      expect((await call()).statusCode).toBe(401);
    } finally {
      await timed.close();
    }
  });
});

describe.each(DATABASES)('the refresh token lifetime on %s', (kind) => {
  it('a refresh token works until its lifetime ends, and is refused from then on (11308)', async () => {
    const start = Date.now();
    let clock = start;
    const timed = await testApp(kind, { demo: true, now: () => clock });
    try {
      const ttl = timed.config.refreshTokenTtl;
      const at = (seconds: number) => {
        clock = start + seconds * 1000;
      };
      const refresh = (token: string) =>
        timed.app.inject({
          method: 'POST',
          url: '/v1/oauth2/token',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams(refreshGrant(token)).toString(),
        });
      const expiry = Math.floor(start / 1000) + 600;
      const early = await signIn(timed.app, me, expiry);
      const late = await signIn(timed.app, me, expiry);
      at(ttl - 1);
      const renewed = await refresh(early.refresh_token);
      expect(renewed.statusCode, renewed.body).toBe(200);
      at(ttl);
      const expired = await refresh(late.refresh_token);
      expect(expired.statusCode).toBe(400);
      expect(codeOf(expired)).toBe(11308);
      // The renewed token lives a full lifetime from its own issue, not from the sign-in.
      at(2 * ttl - 2);
      const again = await refresh(renewed.json().refresh_token);
      expect(again.statusCode, again.body).toBe(200);
      at(3 * ttl - 2);
      expect(codeOf(await refresh(again.json().refresh_token))).toBe(11308);
    } finally {
      await timed.close();
    }
  });
});

describe('the token endpoint rate limit', () => {
  it('answers 429 in the error body with Retry-After once a client exceeds it', async () => {
    const t = await testApp('sqlite', { config: { tokenRateLimit: 5 } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) {
        const response = await tokenRequest(t, passwordGrant(me.username, 'bad'));
        statuses.push(response.statusCode);
        if (response.statusCode === 429) {
          expect(codeOf(response)).toBe(11100);
          expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
        }
      }
      expect(statuses).toEqual([400, 400, 400, 400, 400, 429, 429, 429]);
      // The limited requests are token refusals too, by their own reason.
      const metrics = (await t.app.inject({ url: '/metrics' })).body;
      expect(metrics).toMatch(/gateway_token_refusals_total\{reason="rate_limited"\} 3/);
    } finally {
      await t.close();
    }
  });
});

describe('signing key rotation by key id', () => {
  it('accepts tokens of the previous key while it is listed, and refuses them once it is not', async () => {
    const pem = (key: KeyObject) => key.export({ type: 'pkcs8', format: 'pem' }).toString();
    const a = generateKeyPairSync('ed25519');
    const b = generateKeyPairSync('ed25519');
    const t = await testApp('sqlite', { demo: true, config: { tokenSigningKey: pem(a.privateKey) } });
    try {
      const old = await signIn(t.app, me);
      const rotated = await buildApp(
        {
          ...t.config,
          tokenSigningKey: pem(b.privateKey),
          tokenPreviousPublicKeys: [a.publicKey.export({ type: 'spki', format: 'pem' }).toString()],
        },
        { store: t.store },
      );
      const after = await buildApp({ ...t.config, tokenSigningKey: pem(b.privateKey) }, { store: t.store });
      try {
        const call = (app: typeof t.app, token: string) =>
          app.inject({ url: '/v1/movements?limit=1', headers: { authorization: `Bearer ${token}` } });
        expect((await call(rotated, old.access_token)).statusCode).toBe(200);
        const fresh = await signIn(rotated, me);
        const kid = (token: string) => JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString()).kid;
        expect(kid(fresh.access_token)).not.toBe(kid(old.access_token));
        expect((await call(after, fresh.access_token)).statusCode).toBe(200);
        expect((await call(after, old.access_token)).statusCode).toBe(401);
      } finally {
        await rotated.close();
        await after.close();
      }
    } finally {
      await t.close();
    }
  });
});
