/**
 * Ledger keys as wallets derive them. From a seed phrase and an account nonce (0 for a wallet's first
 * account): `h = sha256(secureHash(be32(nonce) ‖ utf8(seed)))`, clamped as an X25519 scalar
 * (`h[0] &= 248; h[31] &= 127; h[31] |= 64`) to give the private key; the public key is `X25519(private, 9)`,
 * the Montgomery u-coordinate, little-endian.
 */
import { x25519 } from '@noble/curves/ed25519.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { PRIVATE_KEY_LENGTH } from './constants.js';
import { secureHash } from './hashing.js';

export interface LedgerKeyPair {
  /** The clamped Curve25519 private key (32 bytes). */
  privateKey: Uint8Array;
  /** The Curve25519 public key (32 bytes). */
  publicKey: Uint8Array;
}

const MAX_NONCE = 0xffffffff;

/** The key pair of a 32-byte private key, clamped first (a clamped key is left as it is). Throws on another length. */
export function keyPairFromPrivateKey(privateKey: Uint8Array): LedgerKeyPair {
  if (privateKey.length !== PRIVATE_KEY_LENGTH) throw new RangeError('a ledger private key has 32 bytes');
  const clamped = Uint8Array.from(privateKey);
  clamped[0] = (clamped[0] ?? 0) & 248;
  clamped[31] = ((clamped[31] ?? 0) & 127) | 64;
  return { privateKey: clamped, publicKey: x25519.getPublicKey(clamped) };
}

/** The key pair of account `nonce` (a uint32; 0 is a wallet's first account) of a seed phrase. */
export function keyPairFromSeed(seed: string, nonce = 0): LedgerKeyPair {
  if (!Number.isInteger(nonce) || nonce < 0 || nonce > MAX_NONCE) throw new RangeError('nonce is a uint32');
  const text = new TextEncoder().encode(seed);
  const bytes = new Uint8Array(4 + text.length);
  new DataView(bytes.buffer).setUint32(0, nonce, false);
  bytes.set(text, 4);
  return keyPairFromPrivateKey(sha256(secureHash(bytes)));
}
