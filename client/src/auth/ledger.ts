/**
 * Ledger keys and signatures, exactly as the ledger's wallets make them (XEdDSA-like over Curve25519,
 * see the spec's `password` parameter). The private key never leaves the signer.
 */
import { ed25519, x25519 } from '@noble/curves/ed25519.js';
import { bytesToNumberLE, numberToBytesLE } from '@noble/curves/utils.js';
import { blake2b } from '@noble/hashes/blake2.js';
import { sha256, sha512 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { randomBytes } from '@noble/hashes/utils.js';
import bs58 from 'bs58';

export type ChainId = 'W' | 'T';
/** Base58 text. */
export type Base58 = string;

const L = ed25519.Point.Fn.ORDER;
const PRIVATE_KEY_LENGTH = 32;
const secureHash = (data: Uint8Array) => keccak_256(blake2b(data, { dkLen: 32 }));

/** The ledger's "custom data, version 1" prefix that wallets add to a signed message. */
export const MESSAGE_PREFIX = Uint8Array.of(255, 255, 255, 1);

/** Signs bytes with a ledger key. */
export interface LedgerSigner {
  readonly kind: 'ledger';
  /** The base58 public key: the token request's `username`. */
  readonly publicKey: Base58;
  /** Signs `bytes` as they are (the caller adds the message prefix where one is due). */
  sign(bytes: Uint8Array): Promise<Uint8Array>;
}

function clamp(h: Uint8Array): Uint8Array {
  const key = Uint8Array.from(h);
  key[0] = (key[0] ?? 0) & 248;
  key[31] = ((key[31] ?? 0) & 127) | 64;
  return key;
}

/** Signature of `message` by the clamped Curve25519 private key, the way the ledger signs. */
export function signWithLedgerKey(privateKey: Uint8Array, message: Uint8Array, random = randomBytes(64)): Uint8Array {
  const a = bytesToNumberLE(privateKey) % L;
  const A = ed25519.Point.BASE.multiply(a).toBytes();
  const prefix = new Uint8Array(32).fill(0xff);
  prefix[0] = 0xfe;
  const r = bytesToNumberLE(sha512(concat(prefix, privateKey, message, random))) % L;
  const R = ed25519.Point.BASE.multiply(r).toBytes();
  const k = bytesToNumberLE(sha512(concat(R, A, message))) % L;
  const S = (r + k * a) % L;
  const signature = concat(R, numberToBytesLE(S, 32));
  signature[63] = (signature[63] ?? 0) | ((A[31] ?? 0) & 0x80);
  return signature;
}

function signerOfKey(privateKey: Uint8Array): LedgerSigner {
  if (privateKey.length !== PRIVATE_KEY_LENGTH) throw new RangeError('a ledger private key has 32 bytes');
  const key = clamp(privateKey);
  const publicKey = bs58.encode(x25519.getPublicKey(key));
  return { kind: 'ledger', publicKey, sign: async (bytes) => signWithLedgerKey(key, bytes) };
}

/** The signer of account `nonce` (0 for a wallet's first account) of a seed phrase. */
export function signerFromSeed(seed: string, options: { nonce?: number } = {}): LedgerSigner {
  const nonce = options.nonce ?? 0;
  if (!Number.isInteger(nonce) || nonce < 0 || nonce > 0xffffffff) throw new RangeError('nonce is a uint32');
  const text = new TextEncoder().encode(seed);
  const bytes = new Uint8Array(4 + text.length);
  new DataView(bytes.buffer).setUint32(0, nonce, false);
  bytes.set(text, 4);
  return signerOfKey(sha256(secureHash(bytes)));
}

/** The signer of a base58 private key. */
export function signerFromPrivateKey(privateKey: Base58): LedgerSigner {
  return signerOfKey(bs58.decode(privateKey));
}

/** The ledger address of a base58 public key on a chain. */
export function addressOfPublicKey(publicKey: Base58, chainId: ChainId): Base58 {
  return addressOfHash(secureHash(bs58.decode(publicKey)).subarray(0, 20), chainId);
}

/** The ledger address of an Ethereum-style account (`0x` + 40 hex digits). */
export function addressOfEthAccount(ethAddress: string, chainId: ChainId): Base58 {
  if (!/^0x[0-9a-fA-F]{40}$/.test(ethAddress)) throw new RangeError('not a 0x address');
  const bytes = Uint8Array.from(ethAddress.slice(2).match(/../g) ?? [], (h) => Number.parseInt(h, 16));
  return addressOfHash(bytes, chainId);
}

function addressOfHash(hash20: Uint8Array, chainId: ChainId): Base58 {
  const body = concat(Uint8Array.of(1, chainId.charCodeAt(0)), hash20);
  return bs58.encode(concat(body, secureHash(body).subarray(0, 4)));
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
