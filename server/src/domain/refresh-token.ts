/** Refresh tokens: opaque, stored as a hash with the claims they reissue, for a lifetime from their issue. */
import { createHash, randomFillSync } from 'node:crypto';
import type { RefreshTokenRow } from '../store/token.js';
import { type IssuedClaims, iso, type TokenSettings } from './token-settings.js';

/** The stored form of a refresh token (never the token itself). */
export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * The tokens' random bytes, drawn from a pool refilled 8 KiB at a time: one call into OpenSSL's generator
 * for 256 tokens instead of one for each (node:crypto's randomUUID keeps a pool the same way). Each byte is
 * handed out once.
 */
const pool = Buffer.alloc(8192);
let used = pool.length;

function randomText(bytes: number): string {
  if (used + bytes > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  used += bytes;
  return pool.toString('base64url', used - bytes, used);
}

/** A new refresh token of the family: the row to store (its hash, with the claims it reissues) and the token. */
export function newRefreshToken(
  settings: TokenSettings,
  claims: IssuedClaims,
  familyId: string,
  now: number,
): { token: string; row: RefreshTokenRow } {
  const token = `rt_${randomText(32)}`;
  return {
    token,
    row: {
      tokenHash: hashToken(token),
      familyId,
      claims: JSON.stringify(claims),
      expiresAt: iso(now + settings.refreshTokenTtl),
      now: iso(now),
    },
  };
}
