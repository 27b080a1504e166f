/** Signing a sign-in out: by a revocation request, or on the reuse of a spent refresh token. */
import type { Store } from '../store/store.js';
import { raiseSignedOutThrough, revokeTokenFamily, signInOfFamily } from '../store/token.js';
import { claimsOf, iso, type TokenSettings } from './token-settings.js';

/**
 * Revokes a sign-in: in the store (other instances hear of it from there), and at once on this instance. Its
 * password is ended first: the account's sign-out expiry is raised to the password's signed expiry (the
 * sign-in's start plus its lifetime, which its claims carry), so that a revocation that fails halfway is
 * retried with the password already refused, never the other way round.
 */
export async function revokeFamily(
  store: Store,
  settings: TokenSettings,
  familyId: string,
  now: number,
): Promise<void> {
  const signIn = await signInOfFamily(store.db, familyId);
  if (signIn) {
    const signedExpiry = Date.parse(signIn.startedAt) / 1000 + claimsOf(signIn.claims, signIn.account).lt;
    await raiseSignedOutThrough(store.db, signIn.account, iso(signedExpiry), iso(now));
  }
  await revokeTokenFamily(store.db, familyId, iso(now));
  settings.revoked.add(familyId, now);
}
