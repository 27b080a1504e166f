/**
 * Access tokens: EdDSA JWTs that expire at the signed expiry, signed with the current key and verified
 * without the database against the current and earlier keys (by key id).
 */
import { randomUUID, sign } from 'node:crypto';
import { errors as joseErrors, jwtVerify } from 'jose';
import { ApiError } from '../errors.js';
import { type Caller, type IssuedClaims, SCOPE, type TokenSettings } from './token-settings.js';

const VERIFIED_CACHE_SIZE = 10_000;
const base64url = (text: string) => Buffer.from(text).toString('base64url');

/** The encoded JWS header of the signing key (the last one made: there is one signing key at a time). */
let header = { keyId: '', encoded: '' };
function headerOf(keyId: string): string {
  if (header.keyId !== keyId || !header.encoded) {
    header = { keyId, encoded: base64url(JSON.stringify({ alg: 'EdDSA', typ: 'JWT', kid: keyId })) };
  }
  return header.encoded;
}

/**
 * The access token: a compact JWS (RFC 7515) of the claims, signed EdDSA (Ed25519) with node:crypto. The
 * same bytes jose's SignJWT makes, without its detour through WebCrypto (an asynchronous job per token,
 * costing more than the signature itself); tokens are verified with jose (`verifyAccessToken`).
 */
export function signAccessToken(
  claims: IssuedClaims,
  family: string,
  expiry: number,
  settings: TokenSettings,
  now: number,
): string {
  const payload = { ...claims, scope: [SCOPE], sub: claims.a, sid: family, iat: now, exp: expiry, jti: randomUUID() };
  const input = `${headerOf(settings.keyId)}.${base64url(JSON.stringify(payload))}`;
  return `${input}.${sign(null, Buffer.from(input), settings.signingKey).toString('base64url')}`;
}

const unauthorized = () => new ApiError('invalid_access_token');

/**
 * The caller of a `Bearer` access token, unless its sign-in was revoked; any failure is the same 401
 * (code 10000).
 */
export async function verifyAccessToken(
  authorization: string | undefined,
  settings: TokenSettings,
  now: number,
): Promise<Caller> {
  const caller = await verifiedCaller(authorization, settings, now);
  if (caller.family !== null && settings.revoked.has(caller.family)) throw unauthorized();
  return caller;
}

/** Who a well-signed, unexpired access token speaks for (revoked or not). */
async function verifiedCaller(
  authorization: string | undefined,
  settings: TokenSettings,
  now: number,
): Promise<Caller> {
  const match = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/i.exec(authorization ?? '');
  if (!match?.[1] || match[1].length > 4096) throw unauthorized();
  const known = settings.verified?.get(match[1]);
  if (known) {
    if (known.exp > now) return known.caller;
    settings.verified?.delete(match[1]);
    throw unauthorized();
  }
  try {
    const keyFor = (header: { kid?: string }) => {
      const key = header.kid === undefined ? undefined : settings.verifyingKeys.get(header.kid);
      if (!key) throw unauthorized();
      return key;
    };
    const { payload } = await jwtVerify(match[1], keyFor, {
      algorithms: ['EdDSA'],
      currentDate: new Date(now * 1000),
      requiredClaims: ['exp', 'a', 'nb', 'cid', 'user_name', 'jti'],
    });
    if (payload.nb !== settings.chainId || typeof payload.a !== 'string' || typeof payload.exp !== 'number') {
      throw unauthorized();
    }
    const caller = {
      account: payload.a,
      username: String(payload.user_name),
      clientId: String(payload.cid),
      family: typeof payload.sid === 'string' ? payload.sid : null,
      expiresAt: payload.exp,
    };
    if (settings.verified) {
      if (settings.verified.size >= VERIFIED_CACHE_SIZE)
        settings.verified.delete(settings.verified.keys().next().value as string);
      settings.verified.set(match[1], { caller, exp: payload.exp });
    }
    return caller;
  } catch (error) {
    if (error instanceof ApiError || error instanceof joseErrors.JOSEError || error instanceof TypeError) {
      throw unauthorized();
    }
    throw error;
  }
}

/** The sign-in of an access token of ours that has not expired (revoked or not); null for anything else. */
export async function familyOfAccessToken(token: string, settings: TokenSettings, now: number): Promise<string | null> {
  try {
    return (await verifiedCaller(`Bearer ${token}`, settings, now)).family;
  } catch (error) {
    if (error instanceof ApiError) return null;
    throw error;
  }
}
