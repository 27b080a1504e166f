/** What the token rules share: their settings, the claims a token carries, and who a token speaks for. */
import type { KeyObject } from 'node:crypto';
import type { ChainId } from '@gateway/ledger';

/** The only scope there is. */
export const SCOPE = 'general';

/** A time in seconds since the epoch as ISO 8601, as the store keeps times. */
export const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

/** Who a valid access token speaks for. */
export interface Caller {
  /** The ledger address of the account. */
  account: string;
  /** The username the token was issued to: a base58 public key or a `0x` address. */
  username: string;
  clientId: string;
  /** The sign-in (token family) the token was issued to; null for tokens issued before families were signed in. */
  family: string | null;
  /** When the access token expires (seconds since the epoch). */
  expiresAt: number;
}

/** The revoked sign-ins this instance knows of (domain/revocations.ts). */
export interface Revoked {
  has(family: string): boolean;
  /** Records a revocation at `at` (seconds). */
  add(family: string, at: number): void;
  /** Forgets the revocations before `before` (seconds). */
  forgetBefore(before: number): void;
}

export interface TokenPair {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  refresh_token: string;
}

/** A token known to be valid until `exp` (seconds), and who it speaks for. */
export interface KnownToken {
  caller: Caller;
  exp: number;
}

export interface TokenSettings {
  chainId: ChainId;
  clientIds: readonly string[];
  refreshTokenTtl: number;
  /** Seconds after its exchange during which a spent refresh token gets a new pair of its sign-in (0: none). */
  refreshReuseGraceSeconds: number;
  signingKey: KeyObject;
  keyId: string;
  /** Keys that verify access tokens, by key id (the current one, and earlier ones during a rotation). */
  verifyingKeys: ReadonlyMap<string, KeyObject>;
  /**
   * Tokens already verified, with their caller and expiry: verification depends only on the token and the
   * keys, so its answer holds until the token expires. Bounded; the oldest entries go first.
   */
  verified?: Map<string, KnownToken>;
  /**
   * Access tokens this instance signed and that have not been presented yet, with their caller: a token's
   * first use here needs no verification (its signature is this instance's own). Apart from `verified`, so
   * that a storm of sign-ins does not push the tokens in use out of it. Bounded (2,000); the oldest go first.
   */
  issued?: Map<string, KnownToken>;
  /** Revoked sign-ins: their access tokens are refused. */
  revoked: Revoked;
}

export /** The claims a refresh token reissues. */
interface IssuedClaims {
  a: string;
  nb: ChainId;
  user_name: string;
  pk: string;
  cid: string;
  lt: number;
}

/**
 * The claims as a sign-in's row keeps them: only what its `account` column does not say, the username once,
 * as `[username, chain id, client id, lifetime]` (a row for each of millions of sign-ins: named keys took 16
 * bytes more of each). `claimsOf` reads them back.
 */
export const storedClaims = (claims: IssuedClaims) =>
  JSON.stringify([claims.user_name, claims.nb, claims.cid, claims.lt]);

/** The stored claims' forms: `storedClaims`'s, the named one written before it, and an old-form token's. */
type StoredClaims = [string, ChainId, string, number] | { u: string; n: ChainId; c: string; l: number } | IssuedClaims;

/** The claims of a sign-in's row (`storedClaims`), or of an old-form refresh token (kept whole, as issued). */
export function claimsOf(stored: string, account: string): IssuedClaims {
  const parsed = JSON.parse(stored) as StoredClaims;
  if (Array.isArray(parsed)) {
    const [username, chainId, clientId, lifetime] = parsed;
    return { a: account, nb: chainId, user_name: username, pk: username, cid: clientId, lt: lifetime };
  }
  if ('user_name' in parsed) return parsed;
  return { a: account, nb: parsed.n, user_name: parsed.u, pk: parsed.u, cid: parsed.c, lt: parsed.l };
}
