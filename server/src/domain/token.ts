/**
 * The token grants. The password grant proves ownership of a key (domain/password.ts) and issues an
 * access token expiring at the signed expiry with a refresh token; the refresh_token grant rotates the
 * refresh token, and its reuse (past a grace of seconds) revokes the family. Revoking a family (by request or on reuse) ends its
 * password too: the account's passwords signed for that expiry or an earlier one are refused from then on.
 * @see ../../../spec/paths/token.yaml
 */
import { randomUUID } from 'node:crypto';
import { ApiError } from '../errors.js';
import type { Store } from '../store/store.js';
import {
  findRefreshToken,
  raiseSignedOutThrough,
  replaceRefreshToken,
  revokeTokenFamily,
  signInOfFamily,
  startTokenFamily,
  supersedeRefreshTokens,
} from '../store/token.js';
import { familyOfAccessToken, signAccessToken } from './access-token.js';
import { type PasswordGrant, verifyPasswordGrant } from './password.js';
import { hashToken, newRefreshToken } from './refresh-token.js';
import { type IssuedClaims, iso, SCOPE, type TokenPair, type TokenSettings } from './token-settings.js';

/** The form of the refresh tokens this server issues (domain/refresh-token.ts). */
const REFRESH_TOKEN = /^rt_[A-Za-z0-9_-]{43}$/;

function pairOf(
  settings: TokenSettings,
  claims: IssuedClaims,
  refresh: { token: string; row: { familyId: string } },
  expiry: number,
  now: number,
): TokenPair {
  return {
    access_token: signAccessToken(claims, refresh.row.familyId, expiry, settings, now),
    token_type: 'bearer',
    expires_in: expiry,
    refresh_token: refresh.token,
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
  // The family and its first refresh token are written together or not at all, and not at all for a
  // password whose account signed out a sign-in expiring at or after it (checked after the signature, so
  // that only the key's holder learns of a sign-out).
  const refresh = newRefreshToken(settings, claims, randomUUID(), now);
  if (!(await startTokenFamily(store, address, refresh.row, iso(expiry)))) throw new ApiError('password_signed_out');
  return pairOf(settings, claims, refresh, expiry, now);
}

/**
 * The refresh_token grant: spend the token once and issue a new pair with the same lifetime, from now.
 * Presenting a spent token again more than `refreshReuseGraceSeconds` after it was spent revokes its whole
 * family (OAuth 2.0 Security BCP), including the pairs issued since; within the grace (a tab that read the
 * shared storage before another tab's new pair reached it, or two tabs at once) it gets a new pair of the
 * same family (`replayed`), and the token that was live until then (the branch it supersedes) is spent now:
 * a sign-in has one live chain, so a superseded branch used again past the grace is a reuse like any other.
 * A token presented with another client id is refused and left as it was: only its own client can spend it.
 */
export async function issueForRefreshToken(
  store: Store,
  settings: TokenSettings,
  grant: { scope: string; clientId: string; refreshToken: string },
  now: number,
): Promise<{ pair: TokenPair; replayed: boolean }> {
  if (grant.scope !== SCOPE) throw new ApiError('invalid_scope');
  if (!settings.clientIds.includes(grant.clientId)) throw new ApiError('invalid_client');
  if (!REFRESH_TOKEN.test(grant.refreshToken)) throw new ApiError('invalid_refresh_token');
  const tokenHash = hashToken(grant.refreshToken);
  const stored = await findRefreshToken(store.db, tokenHash);
  if (!stored || stored.familyRevokedAt !== null) throw new ApiError('invalid_refresh_token');
  const claims = JSON.parse(stored.claims) as IssuedClaims;
  const usable = claims.cid === grant.clientId && stored.expiresAt > iso(now);
  if (stored.usedAt === null) {
    if (!usable) throw new ApiError('invalid_refresh_token');
    const refresh = newRefreshToken(settings, claims, stored.familyId, now);
    if (await replaceRefreshToken(store, tokenHash, refresh.row)) {
      return { pair: pairOf(settings, claims, refresh, now + claims.lt, now), replayed: false };
    }
  }
  // Spent already: by a concurrent request (now), or before. Within the grace it is another tab that had not
  // seen the new pair yet: it gets a pair of the same sign-in, and the pair the other tab holds is spent from
  // now (the tabs share one storage, where the latest pair is read next). A thief who replays within the
  // grace thus spends the owner's branch, and the owner's next refresh past the grace revokes the sign-in.
  const spentAt = stored.usedAt ?? iso(now);
  if (usable && settings.refreshReuseGraceSeconds > 0 && spentAt >= iso(now - settings.refreshReuseGraceSeconds)) {
    const refresh = newRefreshToken(settings, claims, stored.familyId, now);
    if (await supersedeRefreshTokens(store, tokenHash, refresh.row)) {
      return { pair: pairOf(settings, claims, refresh, now + claims.lt, now), replayed: true };
    }
    // Revoked meanwhile.
    throw new ApiError('invalid_refresh_token');
  }
  // A reuse.
  await revokeFamily(store, settings, stored.familyId, now);
  throw new ApiError('invalid_refresh_token');
}

/**
 * Revokes a sign-in: in the store (other instances hear of it from there), and at once on this instance. Its
 * password is ended first: the account's sign-out expiry is raised to the password's signed expiry (the
 * sign-in's start plus its lifetime, which every refresh token of the family carries), so that a revocation
 * that fails halfway is retried with the password already refused, never the other way round.
 */
async function revokeFamily(store: Store, settings: TokenSettings, familyId: string, now: number): Promise<void> {
  const signIn = await signInOfFamily(store.db, familyId);
  if (signIn) {
    const signedExpiry = Date.parse(signIn.startedAt) / 1000 + (JSON.parse(signIn.claims) as IssuedClaims).lt;
    await raiseSignedOutThrough(store.db, signIn.account, iso(signedExpiry), iso(now));
  }
  await revokeTokenFamily(store.db, familyId, iso(now));
  settings.revoked.add(familyId, now);
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
  const asRefreshToken = async () =>
    REFRESH_TOKEN.test(request.token)
      ? ((await findRefreshToken(store.db, hashToken(request.token)))?.familyId ?? null)
      : null;
  const asAccessToken = () => familyOfAccessToken(request.token, settings, now);
  const [first, second] =
    request.hint === 'access_token' ? [asAccessToken, asRefreshToken] : [asRefreshToken, asAccessToken];
  const family = (await first()) ?? (await second());
  if (family !== null) await revokeFamily(store, settings, family, now);
}
