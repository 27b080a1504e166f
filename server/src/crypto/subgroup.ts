/**
 * The prime-order subgroup check of a Curve25519 public key (a Montgomery u-coordinate), done by one X25519
 * scalar multiplication in node:crypto (OpenSSL) with a fixed scalar chosen so that the answer tells:
 *
 *   inPrimeOrderSubgroup(u)  ⇔  X25519(k, u) = u,   k = 5·L − 1
 *
 * Why it holds (L = 2^252 + 27742317777372353535851937790883648493, the prime order of the base point).
 * - X25519(k, u) is the u-coordinate of [k]P for the point P of u-coordinate u, on Curve25519 or on its
 *   quadratic twist, whichever u lies on (RFC 7748, section 5: the ladder uses u alone); the point at infinity
 *   gives 0, and OpenSSL refuses an all-zero result (an exception here, a refusal).
 * - X25519 clamps its scalar (bits 0–2 and 255 cleared, bit 254 set). k = 5L − 1 is already clamped: it lies in
 *   [2^254, 2^255) and k ≡ 0 (mod 8) since L ≡ 5 (mod 8). So OpenSSL multiplies by k itself.
 * - On the curve, #E(Fp) = 8·L, so P = P0 + T with P0 in the subgroup of order L and T of order dividing 8.
 *   k ≡ −1 (mod L) and k ≡ 0 (mod 8) give [k]P = −P0, whose u-coordinate is u(P0). If T = O the answer is
 *   u(P): accepted. If T ≠ O, u(P0) = u(P) would need P0 = ±P: P0 = P means T = O, and P0 = −P means
 *   T = −2·P0, a point both of order dividing 8 and in the subgroup of odd order L, so O: a contradiction.
 *   (P0 = O, a point of small order, gives 0: refused.)
 * - On the twist, #E'(Fp) = 2(p + 1) − 8L = 4·L' with L' = 2^253 − 55484635554744707071703875581767296995
 *   prime (SafeCurves' twist security). X25519(k, u) = u means [k]P = ±P: the order of P divides k − 1 = 5L − 2
 *   or k + 1 = 5L. Both are odd and neither is a multiple of L' (server/test/crypto/subgroup.test.ts computes
 *   the remainders), so the order would be 1: no point of the twist passes.
 * So a key passes exactly when its point is on Curve25519 and of order L, the test @noble/curves made before
 * (Edwards decompression, `isSmallOrder`, `isTorsionFree`): server/test/crypto/subgroup.test.ts checks the two
 * agree on thousands of seeded cases (real keys, every small-order point, P + T for every torsion point T,
 * non-canonical encodings, random u on and off the curve). The caller refuses u ≥ p and bit 255 first: u
 * must be canonical, as the check compares bytes.
 *
 * Chosen by the figures (CPU per key, medians of 3 rounds of 500–1,000 keys, process.cpuUsage, Node 20.20,
 * this 2-core machine under other work; `node bench/cold-keys.mjs` measures the first and the last again):
 *   @noble/curves `Point.fromBytes` + `isTorsionFree` (what this replaces)      960–1,570 µs
 *   libsodium-wrappers-sumo 0.8.4 `crypto_core_ed25519_is_valid_point` (WASM)  94–108 µs, 2.2 MB of package,
 *     ≈ 100 ms to load and an async `ready`; the plain libsodium-wrappers build lacks the function
 *   sodium-native 5.1.0 `crypto_core_ed25519_is_valid_point` (native addon)    42–45 µs, 18 MB of prebuilt
 *     binaries for 13 platforms, an addon loader made for another runtime (its engines field names Bare)
 *   node:crypto X25519 with the scalar above (this file)                        45–75 µs, no dependency at all
 * The native addon is no faster than OpenSSL's X25519, which ships with Node and is kept up by it.
 */
import { createPrivateKey, createPublicKey, diffieHellman, type KeyObject } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { numberToBytesLE } from '@noble/curves/utils.js';

const L = ed25519.Point.Fn.ORDER;
/** k = 5·L − 1: clamped as X25519 clamps, ≡ −1 (mod L), ≡ 0 (mod 8). */
export const SUBGROUP_SCALAR = 5n * L - 1n;
const PKCS8_X25519_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');

let scalarKey: KeyObject | undefined;
function scalar(): KeyObject {
  scalarKey ??= createPrivateKey({
    key: Buffer.concat([PKCS8_X25519_PREFIX, numberToBytesLE(SUBGROUP_SCALAR, 32)]),
    format: 'der',
    type: 'pkcs8',
  });
  return scalarKey;
}

/**
 * True when the canonical u-coordinate `u` (32 bytes little-endian, u < p, bit 255 clear: the caller checks)
 * is that of a point of Curve25519 in its subgroup of prime order L. Never throws.
 */
export function inPrimeOrderSubgroup(u: Uint8Array): boolean {
  try {
    const text = Buffer.from(u.buffer, u.byteOffset, u.byteLength);
    const point = createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x: text.toString('base64url') }, format: 'jwk' });
    return diffieHellman({ privateKey: scalar(), publicKey: point }).equals(text);
  } catch {
    // OpenSSL refuses the all-zero result of a point of small order.
    return false;
  }
}
