/**
 * Opaque page cursors: `base64url(mac ‖ json(keys))`. The MAC (HMAC-SHA-256, truncated to 16 bytes) covers
 * the list's scope (which list, which filter) and the keys, so a cursor is only accepted by the list and
 * filter it was issued for, and a changed or invented cursor is refused rather than misread.
 * @see ../../../spec/openapi.yaml (Pagination)
 */
import { timingSafeEqual } from 'node:crypto';
import { hmacSha256 } from '../crypto/hmac.js';

const MAC_BYTES = 16;
/** Between the scope and the keys in what the MAC covers. */
const SCOPE_END = Buffer.from([0]);
export const MAX_CURSOR_LENGTH = 256;

export type CursorKeys = readonly (string | number)[];

export interface CursorCodec {
  encode(scope: string, keys: CursorKeys): string;
  /** The keys of a cursor issued for `scope` with `arity` keys, or null when it is not one. */
  decode(scope: string, cursor: string, arity: number): CursorKeys | null;
}

export function createCursorCodec(secret: Uint8Array): CursorCodec {
  const hmac = hmacSha256(secret);
  const mac = (scope: string, payload: Buffer) =>
    hmac(Buffer.from(scope, 'utf8'), SCOPE_END, payload).subarray(0, MAC_BYTES);
  return {
    encode(scope, keys) {
      const payload = Buffer.from(JSON.stringify(keys), 'utf8');
      return Buffer.concat([mac(scope, payload), payload]).toString('base64url');
    },
    decode(scope, cursor, arity) {
      if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
      const raw = Buffer.from(cursor, 'base64url');
      if (raw.length <= MAC_BYTES) return null;
      const payload = raw.subarray(MAC_BYTES);
      if (!timingSafeEqual(raw.subarray(0, MAC_BYTES), mac(scope, payload))) return null;
      let keys: unknown;
      try {
        keys = JSON.parse(payload.toString('utf8'));
      } catch {
        return null;
      }
      const valid =
        Array.isArray(keys) &&
        keys.length === arity &&
        keys.every((k) => typeof k === 'string' || (typeof k === 'number' && Number.isFinite(k)));
      return valid ? (keys as CursorKeys) : null;
    },
  };
}
