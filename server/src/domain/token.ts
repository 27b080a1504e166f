/**
 * The token grants. The password grant proves ownership of a key (domain/password.ts) and issues an
 * access token expiring at the signed expiry with a refresh token; the refresh_token grant rotates the
 * refresh token, and its reuse revokes the family.
 * @see ../../../spec/paths/token.yaml
 */
import { randomUUID } from 'node:crypto';
import { ApiError } from '../errors.js';
import type { Store } from '../store/store.js';
import { findRefreshToken, replaceRefreshToken, revokeTokenFamily, startTokenFamily } from '../store/token.js';
import { signAccessToken } from './access-token.js';
import { type PasswordGrant, verifyPasswordGrant } from './password.js';
import { hashToken, newRefreshToken } from './refresh-token.js';
import { type IssuedClaims, iso, SCOPE, type TokenPair, type TokenSettings } from './token-settings.js';

function pairOf(
  settings: TokenSettings,
  claims: IssuedClaims,
  refreshToken: string,
  expiry: number,
  now: number,
): TokenPair {
  return {
    access_token: signAccessToken(claims, expiry, settings, now),
    token_type: 'bearer',
    expires_in: expiry,
    refresh_token: refreshToken,
  };
}

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
  // The family and its first refresh token are written together or not at all.
  const refresh = newRefreshToken(settings, claims, randomUUID(), now);
  await startTokenFamily(store, address, refresh.row);
  return pairOf(settings, claims, refresh.token, expiry, now);
}

/**
 * The refresh_token grant: spend the token once and issue a new pair with the same lifetime, from now.
 * Presenting a spent token again, concurrently or later, revokes its whole family (OAuth 2.0 Security BCP),
 * including the pair the winner was just given. A token presented with another client id is refused and
 * left as it was: only its own client can spend it.
 */
export async function issueForRefreshToken(
  store: Store,
  settings: TokenSettings,
  grant: { scope: string; clientId: string; refreshToken: string },
  now: number,
): Promise<TokenPair> {
  if (grant.scope !== SCOPE) throw new ApiError('invalid_scope');
  if (!settings.clientIds.includes(grant.clientId)) throw new ApiError('invalid_client');
  if (!/^rt_[A-Za-z0-9_-]{43}$/.test(grant.refreshToken)) throw new ApiError('invalid_refresh_token');
  const tokenHash = hashToken(grant.refreshToken);
  const stored = await findRefreshToken(store.db, tokenHash);
  if (!stored || stored.familyRevokedAt !== null) throw new ApiError('invalid_refresh_token');
  if (stored.usedAt === null) {
    const claims = JSON.parse(stored.claims) as IssuedClaims;
    if (claims.cid !== grant.clientId || stored.expiresAt <= iso(now)) throw new ApiError('invalid_refresh_token');
    const refresh = newRefreshToken(settings, claims, stored.familyId, now);
    if (await replaceRefreshToken(store, tokenHash, refresh.row)) {
      return pairOf(settings, claims, refresh.token, now + claims.lt, now);
    }
  }
  // Spent already (now, by a concurrent request, or before): a reuse.
  await revokeTokenFamily(store.db, stored.familyId, iso(now));
  throw new ApiError('invalid_refresh_token');
}
