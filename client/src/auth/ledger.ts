/**
 * Ledger signers: keys as the ledger's wallets derive them (from `@gateway/ledger`), and signatures made
 * the way the ledger signs (XEdDSA-like over Curve25519, see the spec's `password` parameter). The private
 * key never leaves the signer.
 */

import {
  addressFromEthAddress,
  addressFromPublicKey,
  type Base58,
  type ChainId,
  keyPairFromPrivateKey,
  keyPairFromSeed,
  type LedgerAddress,
  type LedgerKeyPair,
} from '@gateway/ledger';
import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToNumberLE, numberToBytesLE } from '@noble/curves/utils.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { concatBytes, hexToBytes, randomBytes } from '@noble/hashes/utils.js';
import bs58 from 'bs58';

const L = ed25519.Point.Fn.ORDER;

/** Signs bytes with a ledger key. */
export interface LedgerSigner {
  readonly kind: 'ledger';
  /** The base58 public key: the token request's `username`. */
  readonly publicKey: Base58;
  /** Signs `bytes` as they are (the caller adds the message prefix where one is due). */
  sign(bytes: Uint8Array): Promise<Uint8Array>;
}

/**
 * Signature of `message` by the clamped Curve25519 private key, the way the ledger signs: the key is the
 * Edwards scalar itself (no SHA-512 expansion), the nonce is randomized, and the Edwards key's sign bit
 * travels in the top bit of the last byte.
 */
export function signWithLedgerKey(privateKey: Uint8Array, message: Uint8Array, random = randomBytes(64)): Uint8Array {
  const a = bytesToNumberLE(privateKey) % L;
  const A = ed25519.Point.BASE.multiply(a).toBytes();
  const prefix = new Uint8Array(32).fill(0xff);
  prefix[0] = 0xfe;
  const r = bytesToNumberLE(sha512(concatBytes(prefix, privateKey, message, random))) % L;
  const R = ed25519.Point.BASE.multiply(r).toBytes();
  const k = bytesToNumberLE(sha512(concatBytes(R, A, message))) % L;
  const S = (r + k * a) % L;
  const signature = concatBytes(R, numberToBytesLE(S, 32));
  signature[63] = (signature[63] ?? 0) | ((A[31] ?? 0) & 0x80);
  return signature;
}

function signerOfKeys(keys: LedgerKeyPair): LedgerSigner {
  const { privateKey } = keys;
  return {
    kind: 'ledger',
    publicKey: bs58.encode(keys.publicKey),
    sign: async (bytes) => signWithLedgerKey(privateKey, bytes),
  };
}

/** The signer of account `nonce` (0 for a wallet's first account) of a seed phrase. */
export function signerFromSeed(seed: string, options: { nonce?: number } = {}): LedgerSigner {
  return signerOfKeys(keyPairFromSeed(seed, options.nonce ?? 0));
}

/** The signer of a base58 private key. */
export function signerFromPrivateKey(privateKey: Base58): LedgerSigner {
  return signerOfKeys(keyPairFromPrivateKey(bs58.decode(privateKey)));
}

/** The ledger address of a base58 public key on a chain. */
export function addressOfPublicKey(publicKey: Base58, chainId: ChainId): LedgerAddress {
  return addressFromPublicKey(bs58.decode(publicKey), chainId);
}

/** The ledger address of an Ethereum-style account (`0x` + 40 hex digits, any case). */
export function addressOfEthAccount(ethAddress: string, chainId: ChainId): LedgerAddress {
  if (!/^0x[0-9a-fA-F]{40}$/.test(ethAddress)) throw new RangeError('not a 0x address');
  return addressFromEthAddress(hexToBytes(ethAddress.slice(2).toLowerCase()), chainId);
}
