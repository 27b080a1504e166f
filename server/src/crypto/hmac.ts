/**
 * HMAC-SHA-256 (RFC 2104) made of two one-shot `hash` calls over the key's padded blocks, prepared once per
 * key: the same bytes as `createHmac('sha256', key)`, without a native Hmac object (and its OpenSSL context)
 * made and collected for every message: that object was the largest single cost of a movements page in the
 * gateway's own work, these two hashes about a third of it (bench/postgres-floor.md, "After c6eb121").
 * @see https://www.rfc-editor.org/rfc/rfc2104
 */
import { createHmac, hash } from 'node:crypto';

/** SHA-256's block: the key is padded (or, when longer, hashed) to it. */
const BLOCK_BYTES = 64;
const INNER_PAD = 0x36;
const OUTER_PAD = 0x5c;

/** The MAC of the concatenation of `parts` under one key. */
export type HmacSha256 = (...parts: Uint8Array[]) => Buffer;

/**
 * The HMAC-SHA-256 of `key`. Checked against node:crypto's own HMAC when made: a difference is thrown, so a
 * mistake here stops the start instead of issuing cursors no other instance would accept.
 */
export function hmacSha256(key: Uint8Array): HmacSha256 {
  const block = Buffer.alloc(BLOCK_BYTES);
  (key.length > BLOCK_BYTES ? hash('sha256', key, 'buffer') : Buffer.from(key)).copy(block);
  const inner = block.map((byte) => byte ^ INNER_PAD);
  const outer = block.map((byte) => byte ^ OUTER_PAD);
  const mac: HmacSha256 = (...parts) =>
    hash('sha256', Buffer.concat([outer, hash('sha256', Buffer.concat([inner, ...parts]), 'buffer')]), 'buffer');
  const sample = Buffer.from('hmac-sha256 self-check');
  if (!mac(sample).equals(createHmac('sha256', key).update(sample).digest())) {
    throw new Error('hmacSha256 differs from node:crypto createHmac');
  }
  return mac;
}
