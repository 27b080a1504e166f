/**
 * The token grants. The password grant proves ownership of a key (domain/password.ts) and issues an
 * access token expiring at the signed expiry with a refresh token; the refresh_token grant
 * (domain/refresh-grant.ts) rotates the refresh token, and its reuse (past a grace of seconds) revokes the
 * sign-in. Revoking a sign-in (by request or on reuse) ends its password too: the account's passwords
 * signed for that expiry or an earlier one are refused from then on.
 * @see ../../../spec/paths/token.yaml
 */
import { ApiError } from '../errors.js';
import { findLegacyRefreshToken } from '../store/legacy-refresh-token.js';
import type { Store } from '../store/store.js';
import { type NewSignIn, startTokenFamily } from '../store/token.js';
import { familyOfAccessToken } from './access-token.js';
import { type PasswordGrant, verifyPasswordGrant } from './password.js';
import { pairOf, signInEnd, signInOfToken } from './refresh-grant.js';
import {
  hashSecret,
  hashToken,
  LEGACY_REFRESH_TOKEN,
  newChainKey,
  newSignInId,
  newSignInToken,
  parseSignInToken,
} from './refresh-token.js';
import { revokeFamily } from './sign-out.js';
import { type IssuedClaims, iso, storedClaims, type TokenPair, type TokenSettings } from './token-settings.js';

export { issueForRefreshToken } from './refresh-grant.js';

/** The password grant: verify, then issue an access token expiring at the signed expiry and a refresh token. */
export async function issueForPassword(
  store: Store,
  settings: TokenSettings,
  grant: PasswordGrant,
  now: number,
): Promise<TokenPair> {
  const { address, expiry } = verifyPasswordGrant(grant, settings, now);
  const claims: IssuedClaims = {
    a: address,
    nb: settings.chainId,
    user_name: grant.username,
    pk: grant.username,
    cid: grant.clientId,
    lt: expiry - now,
  };
  // The sign-in and its first refresh token are one row, written or not, and not for a password whose
  // account signed out a sign-in expiring at or after it (checked after the signature, so that only the
  // key's holder learns of a sign-out).
  const { signIn, token } = newSignIn(settings, claims, now);
  if (!(await startTokenFamily(store, signIn, iso(expiry)))) throw new ApiError('password_signed_out');
  return pairOf(settings, claims, signIn.familyId, token, expiry, now);
}

/** A sign-in that starts now with `claims`: its family's row, and its first refresh token (generation 0). */
export function newSignIn(
  settings: TokenSettings,
  claims: IssuedClaims,
  now: number,
): { signIn: NewSignIn; token: string } {
  const familyId = newSignInId(now * 1000);
  const chainKey = newChainKey();
  const { token, secretHash } = newSignInToken(familyId, 0, chainKey);
  const signIn = {
    familyId,
    account: claims.a,
    claims: storedClaims(claims),
    chainHash: hashSecret(chainKey),
    tokenHash: secretHash,
    tokenExpiresAt: iso(now + settings.refreshTokenTtl),
    expiresAt: signInEnd(settings, claims, now),
    now: iso(now),
  };
  return { signIn, token };
}

/** The sign-in a refresh token of either form belongs to, whatever its state; null when it is not one of ours. */
async function familyOfRefreshToken(store: Store, token: string): Promise<string | null> {
  const signInToken = parseSignInToken(token);
  if (signInToken) return (await signInOfToken(store, signInToken))?.familyId ?? null;
  if (!LEGACY_REFRESH_TOKEN.test(token)) return null;
  return (await findLegacyRefreshToken(store.db, hashToken(token)))?.familyId ?? null;
}

/**
 * Token revocation (RFC 7009): the sign-in of a refresh token or of an unexpired access token of ours is
 * revoked. Anything else (not ours, expired, revoked already) is not an error: the answer is the same.
 */
export async function revokeToken(
  store: Store,
  settings: TokenSettings,
  request: { token: string; hint?: 'refresh_token' | 'access_token'; clientId?: string },
  now: number,
): Promise<void> {
  if (request.clientId !== undefined && !settings.clientIds.includes(request.clientId)) {
    throw new ApiError('invalid_client');
  }
  const asRefreshToken = () => familyOfRefreshToken(store, request.token);
  const asAccessToken = () => familyOfAccessToken(request.token, settings, now);
  const [first, second] =
    request.hint === 'access_token' ? [asAccessToken, asRefreshToken] : [asRefreshToken, asAccessToken];
  const family = (await first()) ?? (await second());
  if (family !== null) await revokeFamily(store, settings, family, now);
}
