/**
 * Refresh tokens: opaque to clients, never stored (only their hashes are), in two forms.
 *
 * - `rf_<sign-in>.<generation>.<chain key>.<secret>`, issued since migration 0011: it names its sign-in (the
 *   token family) and its generation (0 for the password grant's, one more with each token issued), so a
 *   spent one is recognised from its family's row without a row of its own (store/token-family.ts). The
 *   chain key is the same in every token of a sign-in: it proves that the holder held one of them (what
 *   presenting a spent token proves), without the sign-in's id alone (which access tokens carry as `sid`)
 *   being enough to revoke it. The secret proves that the holder holds this very token.
 * - `rt_<secret>`, issued before: a row of `refresh_tokens` each, until it expires. Its first refresh moves
 *   the sign-in to the new form, with a chain key derived from it (so that tabs replaying the same token
 *   within the grace are given tokens of one chain).
 *
 * An instance of the previous release knows only the second form: it refuses the first as an unknown token.
 */
import { createHash, randomFillSync } from 'node:crypto';

/** The stored form of a secret (never the secret itself). */
export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** Random bytes of a token's secret and of a chain key. */
export const SECRET_BYTES = 32;
export const CHAIN_KEY_BYTES = 16;

/** The form of the refresh tokens issued before migration 0011 (and by the previous release). */
export const LEGACY_REFRESH_TOKEN = /^rt_[A-Za-z0-9_-]{43}$/;
const SIGN_IN_TOKEN = /^rf_([0-9a-f-]{36})\.(0|[1-9][0-9]{0,8})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

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

/** A refresh token of the new form, as presented: what it names and what it proves. */
export interface SignInToken {
  familyId: string;
  generation: number;
  chainKey: string;
  secret: string;
}

/** The parts of a token of the new form; null for anything else. */
export function parseSignInToken(token: string): SignInToken | null {
  const match = SIGN_IN_TOKEN.exec(token);
  if (!match) return null;
  const [, familyId, generation, chainKey, secret] = match as unknown as [string, string, string, string, string];
  return { familyId, generation: Number(generation), chainKey, secret };
}

/** A new chain key, for a sign-in that starts. */
export const newChainKey = () => randomText(CHAIN_KEY_BYTES);

/** The chain key a sign-in gets when a token of the old form moves it to the new one (see above). */
export const chainKeyOfLegacyToken = (token: string) =>
  createHash('sha256').update(`rf-chain:${token}`).digest().subarray(0, CHAIN_KEY_BYTES).toString('base64url');

/** A new token of the sign-in's chain at `generation`: the token, and the hash of its secret to store. */
export function newSignInToken(
  familyId: string,
  generation: number,
  chainKey: string,
): { token: string; secretHash: string } {
  const secret = randomText(SECRET_BYTES);
  return { token: `rf_${familyId}.${generation}.${chainKey}.${secret}`, secretHash: hashToken(secret) };
}
