/**
 * Verifies the ledger's Curve25519 signatures. They are XEdDSA-like, not RFC 8032 Ed25519: the clamped
 * Curve25519 private key is the Edwards scalar itself, and the Edwards key's sign bit travels in the top bit
 * of the signature's last byte. So the Montgomery key u is converted to its Edwards form
 * (`y = (u − 1) / (u + 1) mod p`, top bit from the signature), that bit is cleared in a copy of the
 * signature, and the pair is checked with node:crypto's Ed25519 verify. Hardened beyond the reference
 * library, which accepts forgeries: small-order and non-canonical keys, keys outside the prime-order
 * subgroup (subgroup.ts) and S ≥ L are refused. A key seen before comes from the key cache (key-cache.ts),
 * which speeds up valid signatures only: a refusal does the same work whether the key is cached or not.
 */
import { createPublicKey, type KeyObject, verify } from 'node:crypto';
import { PUBLIC_KEY_LENGTH, SIGNATURE_LENGTH } from '@gateway/ledger';
import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToNumberLE, numberToBytesLE } from '@noble/curves/utils.js';
import { KeyCache, type KeyCacheStats } from './key-cache.js';
import { inPrimeOrderSubgroup } from './subgroup.js';

const Point = ed25519.Point;
const Fp = Point.Fp;
const P = Fp.ORDER;
const L = Point.Fn.ORDER;

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
  if (!inPrimeOrderSubgroup(publicKey)) return null;
  return numberToBytesLE(Fp.div(Fp.sub(u, 1n), Fp.add(u, 1n)), 32);
}

/** Converted keys by (key, sign bit): the subgroup check and conversion cost about one verification more. */
const keyCache = new KeyCache();

/** The key cache's hits, misses and size in this process (read by the metrics). */
export function keyCacheStats(): KeyCacheStats {
  return keyCache.stats();
}

function nodeKeyOf(publicKey: Uint8Array, signBit: number): KeyObject | null {
  const edwards = edwardsKeyOf(publicKey);
  if (!edwards) return null;
  edwards[31] = (edwards[31] ?? 0) | signBit;
  const x = Buffer.from(edwards.buffer, edwards.byteOffset, 32).toString('base64url');
  // A JWK is imported about ten times faster than the same key as DER (SPKI) by Node 20's OpenSSL 3.
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
}

function verifies(message: Uint8Array, key: KeyObject, signature: Uint8Array): boolean {
  try {
    return verify(null, message, key, signature);
  } catch {
    return false;
  }
}

/** True when `signature` is the ledger signature of `message` by `publicKey`. Never throws. */
export function verifyLedgerSignature(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (signature.length !== SIGNATURE_LENGTH || publicKey.length !== PUBLIC_KEY_LENGTH) return false;
  const signBit = (signature[63] ?? 0) & 0x80;
  const plain = Uint8Array.from(signature);
  plain[63] = (plain[63] ?? 0) & 0x7f;
  // S must be canonical: S + L verifies too (malleability).
  if (bytesToNumberLE(plain.subarray(32)) >= L) return false;
  const id = `${Buffer.from(publicKey.buffer, publicKey.byteOffset, publicKey.byteLength).toString('latin1')}${signBit ? 1 : 0}`;
  // A refusal does the same steps whether the key is cached or not, so that how long a bad signature takes
  // does not tell whether the key signed in here before (a refusal for a cached key was 0.28 ms faster, seen
  // over HTTP in 70% of interleaved pairs): one verification with a key used before, the checks and the
  // conversion, one verification with the key just made. A cached key's valid signature takes the first only.
  const cached = keyCache.get(id);
  if (cached) {
    if (verifies(message, cached, plain)) return true;
    const fresh = nodeKeyOf(publicKey, signBit);
    if (fresh) verifies(message, fresh, plain);
    return false;
  }
  const key = nodeKeyOf(publicKey, signBit);
  if (!key) return false;
  if (!verifies(message, key, plain)) {
    // The cached path's first step: a verification with a key used before (this one, now).
    verifies(message, key, plain);
    return false;
  }
  // Only a key that signed is kept: failed attempts with fresh keys cannot push real accounts' keys out.
  keyCache.set(id, key);
  return true;
}
