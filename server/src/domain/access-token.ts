/**
 * Access tokens: EdDSA JWTs that expire at the signed expiry, signed with the current key and verified
 * without the database against the current and earlier keys (by key id).
 */
import { randomUUID, sign, verify } from 'node:crypto';
import { ApiError } from '../errors.js';
import { ownCopy } from '../lib/own-copy.js';
import { type Caller, type IssuedClaims, type KnownToken, SCOPE, type TokenSettings } from './token-settings.js';

/** Tokens remembered as verified (about 300 bytes each beside the token, which the request holds anyway). */
const VERIFIED_CACHE_SIZE = 10_000;
/**
 * Tokens remembered as issued and not yet presented (about 1 KB each, the token's text included): more than
 * a second of grants at an instance's rate (1,000-2,000 a second on two cores), so a client that signs in
 * and then calls finds its token here; under a longer storm the oldest are verified at their first use.
 */
const ISSUED_CACHE_SIZE = 2_000;
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
 * costing more than the signature itself); tokens are verified the same way (`verifiedPayload`).
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
  const token = `${input}.${sign(null, Buffer.from(input), settings.signingKey).toString('base64url')}`;
  if (settings.issued) {
    // Copies of the texts that come from the request (slices of its body would keep all of it alive).
    const caller = {
      account: claims.a,
      username: ownCopy(claims.user_name),
      clientId: ownCopy(claims.cid),
      family,
      expiresAt: expiry,
    };
    remember(settings.issued, token, { caller, exp: expiry }, ISSUED_CACHE_SIZE);
  }
  return token;
}

/** Adds `token` to a bounded cache, the oldest entry going first when it is full. */
function remember(cache: Map<string, KnownToken>, token: string, entry: KnownToken, size = VERIFIED_CACHE_SIZE) {
  if (cache.size >= size) cache.delete(cache.keys().next().value as string);
  cache.set(token, entry);
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
  return callerOfAccessToken(authorization, settings, now);
}

/**
 * `verifyAccessToken` without a promise: the bearer check of every signed-in request, whose work is all
 * synchronous (a promise and a microtask per call it does not need).
 */
export function callerOfAccessToken(authorization: string | undefined, settings: TokenSettings, now: number): Caller {
  const caller = verifiedCaller(authorization, settings, now);
  if (caller.family !== null && settings.revoked.has(caller.family)) throw unauthorized();
  return caller;
}

/** `Authorization: Bearer <compact JWS>`, the scheme in any case. */
const BEARER = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/i;
const BEARER_PREFIX = 'Bearer ';
const MAX_TOKEN_LENGTH = 4096;

/**
 * The token of an `Authorization` header, or the 401. The usual header first: the scheme as written here and
 * a token verified before, which matched BEARER when it was, found without the pattern's test of the whole
 * header (a few hundred characters, on every signed-in request).
 */
function bearerToken(authorization: string | undefined, verified: TokenSettings['verified']): string {
  if (authorization?.startsWith(BEARER_PREFIX)) {
    const token = authorization.slice(BEARER_PREFIX.length);
    if (verified?.has(token)) return token;
  }
  const match = BEARER.exec(authorization ?? '');
  if (!match?.[1] || match[1].length > MAX_TOKEN_LENGTH) throw unauthorized();
  return match[1];
}

/** Who a well-signed, unexpired access token speaks for (revoked or not). */
function verifiedCaller(authorization: string | undefined, settings: TokenSettings, now: number): Caller {
  const token = bearerToken(authorization, settings.verified);
  const known = settings.verified?.get(token);
  if (known) {
    if (known.exp > now) return known.caller;
    settings.verified?.delete(token);
    throw unauthorized();
  }
  // A token this instance signed, presented for the first time: what verification would find.
  const issued = settings.issued?.get(token);
  if (issued) {
    settings.issued?.delete(token);
    if (issued.exp <= now) throw unauthorized();
    if (settings.verified) remember(settings.verified, token, issued);
    return issued.caller;
  }
  const payload = verifiedPayload(token, settings, now);
  if (payload.nb !== settings.chainId || typeof payload.a !== 'string') throw unauthorized();
  const caller = {
    account: payload.a,
    username: String(payload.user_name),
    clientId: String(payload.cid),
    family: typeof payload.sid === 'string' ? payload.sid : null,
    expiresAt: payload.exp,
  };
  if (settings.verified) remember(settings.verified, token, { caller, exp: payload.exp });
  return caller;
}

/** The claims every access token of ours carries (`verifiedPayload` refuses a token without one of them). */
const REQUIRED_CLAIMS = ['exp', 'a', 'nb', 'cid', 'user_name', 'jti'] as const;
/** An Ed25519 signature in base64url: 64 bytes. */
const SIGNATURE_LENGTH = 86;

/** The JSON object encoded in base64url `part`; refused when it is anything else. */
function jsonObjectOf(part: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    throw unauthorized();
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw unauthorized();
  return value as Record<string, unknown>;
}

/**
 * The claims of a compact JWS (RFC 7515) signed EdDSA by one of the verifying keys (chosen by the header's
 * `kid`), unexpired at `now`, with every required claim: what jose's `jwtVerify` checks of these tokens
 * (algorithm allowed, `crit` understood, signature, `exp`/`nbf`/`iat` types and times, required claims),
 * with node:crypto's one-shot `verify` instead of a WebCrypto job per token (about twice its CPU, and more
 * under many concurrent first uses: opening 5,000 event streams). A header with `crit` or `b64` is refused
 * (none is understood), and the signature's base64url must be the canonical one. Any failure is the 401.
 */
function verifiedPayload(
  token: string,
  settings: TokenSettings,
  now: number,
): Record<string, unknown> & { exp: number } {
  const [encodedHeader = '', encodedPayload = '', signature = ''] = token.split('.');
  const header = jsonObjectOf(encodedHeader);
  if (header.alg !== 'EdDSA' || header.crit !== undefined || header.b64 !== undefined) throw unauthorized();
  const key = typeof header.kid === 'string' ? settings.verifyingKeys.get(header.kid) : undefined;
  if (!key || signature.length !== SIGNATURE_LENGTH) throw unauthorized();
  const signatureBytes = Buffer.from(signature, 'base64url');
  if (signatureBytes.toString('base64url') !== signature) throw unauthorized();
  const input = Buffer.from(`${encodedHeader}.${encodedPayload}`);
  if (!verify(null, input, key, signatureBytes)) throw unauthorized();
  const payload = jsonObjectOf(encodedPayload);
  if (REQUIRED_CLAIMS.some((claim) => payload[claim] === undefined)) throw unauthorized();
  const { exp, nbf, iat } = payload;
  if (typeof exp !== 'number' || !Number.isFinite(exp) || exp <= now) throw unauthorized();
  if (nbf !== undefined && (typeof nbf !== 'number' || nbf > now)) throw unauthorized();
  if (iat !== undefined && (typeof iat !== 'number' || !Number.isFinite(iat))) throw unauthorized();
  return { ...payload, exp };
}

/** The sign-in of an access token of ours that has not expired (revoked or not); null for anything else. */
export async function familyOfAccessToken(token: string, settings: TokenSettings, now: number): Promise<string | null> {
  try {
    return verifiedCaller(`Bearer ${token}`, settings, now).family;
  } catch (error) {
    if (error instanceof ApiError) return null;
    throw error;
  }
}
