/** Refresh tokens: opaque, stored as a hash with the claims they reissue, for a lifetime from their issue. */
import { createHash, randomBytes } from 'node:crypto';
import type { RefreshTokenRow } from '../store/token.js';
import { type IssuedClaims, iso, type TokenSettings } from './token-settings.js';

/** The stored form of a refresh token (never the token itself). */
export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** A new refresh token of the family: the row to store (its hash, with the claims it reissues) and the token. */
export function newRefreshToken(
  settings: TokenSettings,
  claims: IssuedClaims,
  familyId: string,
  now: number,
): { token: string; row: RefreshTokenRow } {
  const token = `rt_${randomBytes(32).toString('base64url')}`;
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
