/**
 * Ledger keys from a seed phrase, as wallets derive them (LEDGER-CRYPTO.md): the account nonce numbers
 * accounts of one seed. The server uses it for withdrawal proxy addresses (seed from configuration).
 */
import { x25519 } from '@noble/curves/ed25519.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { secureHash } from './hashing.js';

export interface LedgerKeyPair {
  privateKey: Uint8Array;
  publicKey: Uint8Array;
}

/** The key pair of account `nonce` of `seed` (nonce 0 is a wallet's first account). */
export function keyPairFromSeed(seed: string, nonce = 0): LedgerKeyPair {
  if (!Number.isInteger(nonce) || nonce < 0 || nonce > 0xffffffff) throw new RangeError('nonce is a uint32');
  const seedBytes = new TextEncoder().encode(seed);
  const bytes = new Uint8Array(4 + seedBytes.length);
  new DataView(bytes.buffer).setUint32(0, nonce, false);
  bytes.set(seedBytes, 4);
  const privateKey = sha256(secureHash(bytes));
  privateKey[0] = (privateKey[0] ?? 0) & 248;
  privateKey[31] = ((privateKey[31] ?? 0) & 127) | 64;
  return { privateKey, publicKey: x25519.getPublicKey(privateKey) };
}
