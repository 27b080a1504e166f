/**
 * The access token's verification (node:crypto, no WebCrypto job per token): what jose's `jwtVerify` checked
 * of these tokens is still checked, each refusal the same 401, and jose (a standard library) agrees with it
 * on tokens that pass: it verifies them with the public key.
 */
import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { signAccessToken, verifyAccessToken } from '../../src/domain/access-token.js';
import { RevokedFamilies } from '../../src/domain/revocations.js';
import type { IssuedClaims, KnownToken, TokenSettings } from '../../src/domain/token-settings.js';
import { ApiError } from '../../src/errors.js';

const NOW = 1_800_000_000;
const keys = generateKeyPairSync('ed25519');
const other = generateKeyPairSync('ed25519');
const settings: TokenSettings = {
  chainId: 'W',
  clientIds: ['waves.exchange'],
  refreshTokenTtl: 2_592_000,
  refreshReuseGraceSeconds: 30,
  signingKey: keys.privateKey,
  keyId: 'k1',
  verifyingKeys: new Map([['k1', keys.publicKey]]),
  revoked: new RevokedFamilies(),
};
const claims: IssuedClaims = { a: '3PAccount', nb: 'W', user_name: 'user', pk: 'user', cid: 'waves.exchange', lt: 600 };
const b64 = (value: unknown) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
const payloadOf = (extra: Record<string, unknown> = {}) => ({
  ...claims,
  scope: ['general'],
  sub: claims.a,
  sid: 'family',
  iat: NOW,
  exp: NOW + 600,
  jti: 'jti-1',
  ...extra,
});

/** A compact JWS of `header` and `payload` (objects, or raw texts), signed with `key`. */
function jws(header: unknown, payload: unknown, key: KeyObject = keys.privateKey): string {
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${sign(null, Buffer.from(input), key).toString('base64url')}`;
}
const HEADER = { alg: 'EdDSA', typ: 'JWT', kid: 'k1' };
const verified = (token: string) => verifyAccessToken(`Bearer ${token}`, { ...settings, verified: new Map() }, NOW);

describe('access token verification', () => {
  it('accepts the tokens it signs, which jose verifies as well', async () => {
    const token = signAccessToken(claims, 'family', NOW + 600, settings, NOW);
    await expect(verified(token)).resolves.toEqual({
      account: claims.a,
      username: 'user',
      clientId: 'waves.exchange',
      family: 'family',
      expiresAt: NOW + 600,
    });
    const { payload } = await jwtVerify(token, keys.publicKey, { currentDate: new Date(NOW * 1000) });
    expect(payload.sid).toBe('family');
    await expect(verified(jws(HEADER, payloadOf()))).resolves.toMatchObject({ account: claims.a });
  });

  it.each([
    ['alg none', jws({ ...HEADER, alg: 'none' }, payloadOf())],
    ['alg HS256', jws({ ...HEADER, alg: 'HS256' }, payloadOf())],
    ['no alg', jws({ typ: 'JWT', kid: 'k1' }, payloadOf())],
    ['an unknown kid', jws({ ...HEADER, kid: 'k2' }, payloadOf())],
    ['no kid', jws({ alg: 'EdDSA', typ: 'JWT' }, payloadOf())],
    ['a kid that is no string', jws({ ...HEADER, kid: 1 }, payloadOf())],
    ['a crit header', jws({ ...HEADER, crit: ['exp'] }, payloadOf())],
    ['a b64 header', jws({ ...HEADER, b64: false }, payloadOf())],
    ['another key', jws(HEADER, payloadOf(), other.privateKey)],
    ['an expired token', jws(HEADER, payloadOf({ exp: NOW }))],
    ['exp as text', jws(HEADER, payloadOf({ exp: String(NOW + 600) }))],
    ['nbf in the future', jws(HEADER, payloadOf({ nbf: NOW + 1 }))],
    ['nbf as text', jws(HEADER, payloadOf({ nbf: String(NOW) }))],
    ['iat as text', jws(HEADER, payloadOf({ iat: String(NOW) }))],
    ['no jti', jws(HEADER, payloadOf({ jti: undefined }))],
    ['no exp', jws(HEADER, payloadOf({ exp: undefined }))],
    ['another chain', jws(HEADER, payloadOf({ nb: 'T' }))],
    ['a payload that is an array', jws(HEADER, [payloadOf()])],
    ['a payload that is no JSON', jws(HEADER, 'not json')],
    ['a header that is no JSON', jws('{"alg":"EdDSA"', payloadOf())],
    ['a header that is null', jws(null, payloadOf())],
  ])('refuses %s (401, 10000)', async (_name, token) => {
    await expect(verified(token)).rejects.toEqual(new ApiError('invalid_access_token'));
  });

  it('refuses a signature in a non-canonical base64url (the same bytes), and a truncated one', async () => {
    const token = jws(HEADER, payloadOf());
    const last = token.at(-1) as string;
    // 64 bytes are 86 characters of which the last carries 4 unused bits: another letter of the same 2 bits.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const twin = alphabet[alphabet.indexOf(last) ^ 1] as string;
    const variant = `${token.slice(0, -1)}${twin}`;
    expect(Buffer.from(variant.split('.')[2] as string, 'base64url')).toEqual(
      Buffer.from(token.split('.')[2] as string, 'base64url'),
    );
    await expect(verified(variant)).rejects.toEqual(new ApiError('invalid_access_token'));
    await expect(verified(token.slice(0, -2))).rejects.toEqual(new ApiError('invalid_access_token'));
    await expect(verified(token)).resolves.toMatchObject({ account: claims.a });
  });
});

describe('tokens this instance issued', () => {
  const caches = () => ({ verified: new Map<string, KnownToken>(), issued: new Map<string, KnownToken>() });
  /** Settings that can verify nothing: a token they accept was known as issued (or verified) before. */
  const keyless = (own: ReturnType<typeof caches>) => ({ ...settings, ...own, verifyingKeys: new Map() });

  it('knows the caller of a token it signed at its first use, without verifying it, as verification would', async () => {
    const own = caches();
    const token = signAccessToken(claims, 'family', NOW + 600, { ...settings, ...own }, NOW);
    expect(own.issued.has(token)).toBe(true);
    const expected = await verified(token);
    await expect(verifyAccessToken(`Bearer ${token}`, keyless(own), NOW)).resolves.toEqual(expected);
    // Moved to the verified tokens at its first use.
    expect(own.issued.has(token)).toBe(false);
    expect(own.verified.get(token)).toEqual({ caller: expected, exp: NOW + 600 });
    await expect(verifyAccessToken(`bearer ${token}`, keyless(own), NOW + 599)).resolves.toEqual(expected);
  });

  it('refuses an issued token once expired, of a revoked sign-in, or altered', async () => {
    const own = caches();
    const late = signAccessToken(claims, 'family', NOW + 600, { ...settings, ...own }, NOW);
    await expect(verifyAccessToken(`Bearer ${late}`, keyless(own), NOW + 600)).rejects.toEqual(
      new ApiError('invalid_access_token'),
    );
    expect(own.issued.has(late)).toBe(false);
    expect(own.verified.has(late)).toBe(false);

    const revoked = new RevokedFamilies();
    revoked.add('gone', NOW);
    const ofRevoked = signAccessToken(claims, 'gone', NOW + 600, { ...settings, ...own }, NOW);
    await expect(verifyAccessToken(`Bearer ${ofRevoked}`, { ...keyless(own), revoked }, NOW)).rejects.toEqual(
      new ApiError('invalid_access_token'),
    );

    const token = signAccessToken(claims, 'family', NOW + 600, { ...settings, ...own }, NOW);
    const [head, body, signature] = token.split('.') as [string, string, string];
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    const altered = `${head}.${b64({ ...payload, a: '3POther' })}.${signature}`;
    await expect(verifyAccessToken(`Bearer ${altered}`, { ...settings, ...own }, NOW)).rejects.toEqual(
      new ApiError('invalid_access_token'),
    );
    await expect(verifyAccessToken(`Bearer ${token}`, keyless(own), NOW)).resolves.toMatchObject({ account: claims.a });
  });

  it('remembers at most 2,000 issued tokens, the oldest going first (then verified as any other)', async () => {
    const own = caches();
    const first = signAccessToken(claims, 'f0', NOW + 600, { ...settings, ...own }, NOW);
    for (let i = 1; i <= 2_000; i += 1) signAccessToken(claims, `f${i}`, NOW + 600, { ...settings, ...own }, NOW);
    expect(own.issued.size).toBe(2_000);
    expect(own.issued.has(first)).toBe(false);
    await expect(verifyAccessToken(`Bearer ${first}`, keyless(own), NOW)).rejects.toEqual(
      new ApiError('invalid_access_token'),
    );
    await expect(verifyAccessToken(`Bearer ${first}`, { ...settings, ...own }, NOW)).resolves.toMatchObject({
      family: 'f0',
    });
  });
});
