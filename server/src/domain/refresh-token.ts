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

/** The stored form of a token of the old form (never the token itself): SHA-256, hex. */
export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * The stored form of a secret or chain key of a token of the new form: the first 128 bits of its SHA-256, in
 * base64url (22 characters, where the whole hash in hex takes 64: three of them in each of millions of
 * sign-in rows). The secrets are random (256 and 128 bits): knowing a stored hash, finding a secret that
 * matches it takes some 2^128 tries.
 */
export const hashSecret = (secret: string) =>
  createHash('sha256').update(secret).digest().subarray(0, 16).toString('base64url');

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

/** The next `bytes` random bytes of the pool (a view of it: read them before the next call). */
function random(bytes: number): Buffer {
  if (used + bytes > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  used += bytes;
  return pool.subarray(used - bytes, used);
}

const randomText = (bytes: number) => random(bytes).toString('base64url');

/**
 * A new sign-in's id: a UUID of version 7 (RFC 9562: the time in milliseconds, then random bits), so that
 * sign-ins are added at the end of the primary key's index instead of anywhere in it, which leaves its pages
 * full (a random UUID's index pages are about two-thirds full).
 */
export function newSignInId(now = Date.now()): string {
  const bytes = Buffer.from(random(16));
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = 0x70 | ((bytes[6] as number) & 0x0f);
  bytes[8] = 0x80 | ((bytes[8] as number) & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
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
  return { token: `rf_${familyId}.${generation}.${chainKey}.${secret}`, secretHash: hashSecret(secret) };
}
