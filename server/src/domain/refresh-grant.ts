/**
 * The refresh_token grant: spend the token once and issue a new pair with the same lifetime, from now.
 * Presenting a spent token again more than `refreshReuseGraceSeconds` after it was spent revokes its whole
 * sign-in (OAuth 2.0 Security BCP), including the pairs issued since; within the grace (a tab that read the
 * shared storage before another tab's new pair reached it, or two tabs at once) it gets a new pair of the
 * same sign-in (`replayed`), and the token that was live until then (the branch it supersedes) is spent now:
 * a sign-in has one live chain, so a superseded branch used again past the grace is a reuse like any other.
 * A token presented with another client id is refused and left as it was: only its own client can spend it.
 *
 * A sign-in's tokens are generations in its family's row (domain/refresh-token.ts): the live one, and those
 * spent within the grace (their hashes, to tell a replay from a forgery). Any other token of the sign-in's
 * chain, of an earlier generation, is a spent one presented past the grace: a reuse.
 * @see ../../../spec/paths/token.yaml
 */
import { ApiError } from '../errors.js';
import { findLegacyRefreshToken, spendLegacyToken } from '../store/legacy-refresh-token.js';
import type { Store } from '../store/store.js';
import { issueNextToken, type NextToken, readSignIn, type SignIn } from '../store/token-family.js';
import { signAccessToken } from './access-token.js';
import {
  chainKeyOfLegacyToken,
  hashSecret,
  hashToken,
  LEGACY_REFRESH_TOKEN,
  newSignInToken,
  parseSignInToken,
  type SignInToken,
} from './refresh-token.js';
import { revokeFamily } from './sign-out.js';
import {
  claimsOf,
  type IssuedClaims,
  iso,
  SCOPE,
  storedClaims,
  type TokenPair,
  type TokenSettings,
} from './token-settings.js';

/** Spent tokens a sign-in's row keeps for the grace at most: more replays than that within it are reuses. */
const SPENT_KEPT = 16;
/**
 * Reads of the sign-in a refresh may take: each further one follows another refresh of the sign-in that
 * wrote in between, so this bounds only a sign-in refreshed by that many requests at once.
 */
const ATTEMPTS = 32;

const refused = () => new ApiError('invalid_refresh_token');

/** The pair of a grant: the access token (expiring at `expiry`) and the refresh token. */
export function pairOf(
  settings: TokenSettings,
  claims: IssuedClaims,
  familyId: string,
  refreshToken: string,
  expiry: number,
  now: number,
): TokenPair {
  return {
    access_token: signAccessToken(claims, familyId, expiry, settings, now),
    token_type: 'bearer',
    expires_in: expiry,
    refresh_token: refreshToken,
  };
}

/**
 * When nothing issued with a token issued now works any more (the later of its expiry and its access
 * token's), rounded up to a 64th of that life (under 12 hours for 30 days). The sign-in's row keeps it indexed (housekeeping deletes
 * ended sign-ins in its order): rounded, a sign-in refreshed every few minutes moves it a few times a day,
 * and its other refreshes change no indexed column, which PostgreSQL makes heap-only updates (no new index
 * entries, the old version's space reused on its page). Housekeeping deletes a sign-in that much later.
 */
export function signInEnd(settings: TokenSettings, claims: IssuedClaims, now: number): string {
  const life = Math.max(settings.refreshTokenTtl, claims.lt);
  const step = Math.max(1, Math.floor(life / 64));
  return iso(Math.ceil((now + life) / step) * step);
}

/**
 * The sign-in's next token: the live one (if any) is spent now and kept for the grace with those spent
 * within it; the new one is live.
 */
function nextToken(
  settings: TokenSettings,
  signIn: SignIn,
  claims: IssuedClaims,
  chainKey: string,
  now: number,
): { token: string; next: NextToken } {
  const chainHash = hashSecret(chainKey);
  const sameChain = signIn.chainHash === chainHash && signIn.generation !== null;
  const generation = signIn.generation === null ? 0 : signIn.generation + 1;
  const { token, secretHash } = newSignInToken(signIn.familyId, generation, chainKey);
  const graceFrom = iso(now - settings.refreshReuseGraceSeconds);
  const spent =
    settings.refreshReuseGraceSeconds > 0 && sameChain && signIn.tokenHash && signIn.tokenExpiresAt
      ? [
          ...signIn.spent.filter((s) => s.spentAt >= graceFrom),
          {
            generation: signIn.generation as number,
            hash: signIn.tokenHash,
            spentAt: iso(now),
            expiresAt: signIn.tokenExpiresAt,
          },
        ].slice(-SPENT_KEPT)
      : [];
  return {
    token,
    next: {
      claims: storedClaims(claims),
      chainHash,
      generation,
      tokenHash: secretHash,
      tokenExpiresAt: iso(now + settings.refreshTokenTtl),
      spent,
      expiresAt: signInEnd(settings, claims, now),
    },
  };
}

export async function issueForRefreshToken(
  store: Store,
  settings: TokenSettings,
  grant: { scope: string; clientId: string; refreshToken: string },
  now: number,
): Promise<{ pair: TokenPair; replayed: boolean }> {
  if (grant.scope !== SCOPE) throw new ApiError('invalid_scope');
  if (!settings.clientIds.includes(grant.clientId)) throw new ApiError('invalid_client');
  const token = parseSignInToken(grant.refreshToken);
  if (token) return refreshSignIn(store, settings, token, grant.clientId, now);
  if (LEGACY_REFRESH_TOKEN.test(grant.refreshToken))
    return refreshLegacy(store, settings, grant.refreshToken, grant.clientId, now);
  throw refused();
}

/** The sign-in a token of the new form names, if it is of the token's chain: null for an unknown token. */
export async function signInOfToken(store: Store, token: SignInToken): Promise<SignIn | null> {
  const signIn = await readSignIn(store.db, token.familyId);
  return signIn?.chainHash && signIn.chainHash === hashSecret(token.chainKey) ? signIn : null;
}

async function refreshSignIn(
  store: Store,
  settings: TokenSettings,
  token: SignInToken,
  clientId: string,
  now: number,
): Promise<{ pair: TokenPair; replayed: boolean }> {
  const secretHash = hashSecret(token.secret);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const signIn = await signInOfToken(store, token);
    if (!signIn || signIn.revokedAt !== null || signIn.generation === null) throw refused();
    const claims = claimsOf(signIn.claims as string, signIn.account);
    // Another client's token, live or spent, is refused and left as it was: no reuse is told from it.
    if (claims.cid !== clientId) throw refused();
    const live = token.generation === signIn.generation && secretHash === signIn.tokenHash;
    // Spent: by a concurrent request (read again after its write), or before.
    const spent = signIn.spent.find((s) => s.generation === token.generation && s.hash === secretHash);
    const expiresAt = live ? signIn.tokenExpiresAt : spent?.expiresAt;
    const usable = expiresAt !== undefined && expiresAt !== null && expiresAt > iso(now);
    if (live && !usable) throw refused();
    const withinGrace =
      spent !== undefined &&
      settings.refreshReuseGraceSeconds > 0 &&
      spent.spentAt >= iso(now - settings.refreshReuseGraceSeconds);
    if (!live && !(usable && withinGrace)) {
      // A reuse: a token of the sign-in's chain that is neither live nor spent within the grace.
      await revokeFamily(store, settings, signIn.familyId, now);
      throw refused();
    }
    const { token: refreshToken, next } = nextToken(settings, signIn, claims, token.chainKey, now);
    if (await issueNextToken(store, signIn.familyId, signIn.generation, next)) {
      return { pair: pairOf(settings, claims, signIn.familyId, refreshToken, now + claims.lt, now), replayed: !live };
    }
  }
  throw new Error('a refresh lost the race for its sign-in too often');
}

/**
 * A token of the old form: its first refresh (or a replay of it within the grace) moves the sign-in to its
 * family's row, with the chain key derived from it; a spent one past the grace is a reuse as before.
 */
async function refreshLegacy(
  store: Store,
  settings: TokenSettings,
  presented: string,
  clientId: string,
  now: number,
): Promise<{ pair: TokenPair; replayed: boolean }> {
  const tokenHash = hashToken(presented);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const stored = await findLegacyRefreshToken(store.db, tokenHash);
    const signIn = stored && (await readSignIn(store.db, stored.familyId));
    if (!stored || !signIn || signIn.revokedAt !== null) throw refused();
    const claims = JSON.parse(stored.claims) as IssuedClaims;
    if (claims.cid !== clientId) throw refused();
    const usable = stored.expiresAt > iso(now);
    if (stored.usedAt === null && !usable) throw refused();
    const withinGrace =
      stored.usedAt === null ||
      (settings.refreshReuseGraceSeconds > 0 && stored.usedAt >= iso(now - settings.refreshReuseGraceSeconds));
    if (!usable || !withinGrace) {
      await revokeFamily(store, settings, stored.familyId, now);
      throw refused();
    }
    const { token, next } = nextToken(settings, signIn, claims, chainKeyOfLegacyToken(presented), now);
    const spent = { familyId: stored.familyId, tokenHash, replay: stored.usedAt !== null, now: iso(now) };
    if (await spendLegacyToken(store, spent, signIn.generation, next)) {
      const pair = pairOf(settings, claims, stored.familyId, token, now + claims.lt, now);
      return { pair, replayed: stored.usedAt !== null };
    }
  }
  throw new Error('a refresh lost the race for its sign-in too often');
}
