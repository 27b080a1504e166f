/**
 * Verifies the ledger's Curve25519 signatures. They are XEdDSA-like, not RFC 8032 Ed25519: the clamped
 * Curve25519 private key is the Edwards scalar itself, and the Edwards key's sign bit travels in the top bit
 * of the signature's last byte. So the Montgomery key u is converted to its Edwards form
 * (`y = (u − 1) / (u + 1) mod p`, top bit from the signature), that bit is cleared in a copy of the
 * signature, and the pair is checked with node:crypto's Ed25519 verify. Hardened beyond the reference
 * library, which accepts forgeries: small-order and non-canonical keys, keys outside the prime-order
 * subgroup and S ≥ L are refused.
 */
import { createPublicKey, type KeyObject, verify } from 'node:crypto';
import { PUBLIC_KEY_LENGTH, SIGNATURE_LENGTH } from '@gateway/ledger';
import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToNumberLE, numberToBytesLE } from '@noble/curves/utils.js';

const Point = ed25519.Point;
const Fp = Point.Fp;
const P = Fp.ORDER;
const L = Point.Fn.ORDER;
const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** Montgomery u-coordinates of the points of small order (order 1, 2, 4, 8): forgeable keys. */
const SMALL_ORDER_U = new Set<bigint>([
  0n,
  1n,
  P - 1n,
  325606250916557431795983626356110631294008115727848805560023387167927233504n,
  39382357235489614581723060781553021112529911719440698176882885853963445705823n,
]);

/**
 * The Edwards y-coordinate (little-endian, top bit clear) of a Curve25519 public key, or null when the
 * key must be refused: wrong length, bit 255 set, u ≥ p, small order, not on the curve, or outside the
 * prime-order subgroup that every real key lies in.
 */
export function edwardsKeyOf(publicKey: Uint8Array): Uint8Array | null {
  if (publicKey.length !== PUBLIC_KEY_LENGTH) return null;
  if ((publicKey[31] ?? 0) & 0x80) return null;
  const u = bytesToNumberLE(publicKey);
  if (u >= P || SMALL_ORDER_U.has(u)) return null;
  const y = Fp.div(Fp.sub(u, 1n), Fp.add(u, 1n));
  const encoded = numberToBytesLE(y, 32);
  try {
    const point = Point.fromBytes(encoded);
    if (point.isSmallOrder() || !point.isTorsionFree()) return null;
  } catch {
    return null;
  }
  return encoded;
}

/** Converted keys by (key, sign bit); conversion and the subgroup check cost far more than the verify. */
const keyCache = new Map<string, KeyObject | null>();
const KEY_CACHE_SIZE = 10_000;

function nodeKeyFor(publicKey: Uint8Array, signBit: number): KeyObject | null {
  const cacheKey = `${Buffer.from(publicKey).toString('hex')}:${signBit}`;
  const cached = keyCache.get(cacheKey);
  if (cached !== undefined) return cached;
  const edwards = edwardsKeyOf(publicKey);
  let key: KeyObject | null = null;
  if (edwards) {
    const withSign = Uint8Array.from(edwards);
    withSign[31] = (withSign[31] ?? 0) | signBit;
    key = createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, withSign]), format: 'der', type: 'spki' });
  }
  if (keyCache.size >= KEY_CACHE_SIZE) keyCache.delete(keyCache.keys().next().value as string);
  keyCache.set(cacheKey, key);
  return key;
}

/** True when `signature` is the ledger signature of `message` by `publicKey`. Never throws. */
export function verifyLedgerSignature(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (signature.length !== SIGNATURE_LENGTH) return false;
  const signBit = (signature[63] ?? 0) & 0x80;
  const plain = Uint8Array.from(signature);
  plain[63] = (plain[63] ?? 0) & 0x7f;
  // S must be canonical: S + L verifies too (malleability).
  if (bytesToNumberLE(plain.subarray(32)) >= L) return false;
  const key = nodeKeyFor(publicKey, signBit);
  if (!key) return false;
  try {
    return verify(null, message, key, plain);
  } catch {
    return false;
  }
}
