/**
 * Ledger addresses: `0x01 ‖ chainId ‖ hash20 ‖ checksum4`, base58, 26 bytes.
 * `hash20` is the secure hash of the public key, or the 20 bytes of an Ethereum-style account's address.
 */
import bs58 from 'bs58';
import { secureHash } from './hashing.js';

export type ChainId = 'W' | 'T';
/** A ledger address as base58 text. */
export type LedgerAddress = string;

export const ADDRESS_VERSION = 1;
export const ADDRESS_LENGTH = 26;
const HASH_LENGTH = 20;
const CHECKSUM_LENGTH = 4;

export const chainIdByte = (chainId: ChainId): number => chainId.charCodeAt(0);

function addressFromHash20(hash20: Uint8Array, chainId: ChainId): LedgerAddress {
  const body = new Uint8Array(2 + HASH_LENGTH);
  body[0] = ADDRESS_VERSION;
  body[1] = chainIdByte(chainId);
  body.set(hash20.subarray(0, HASH_LENGTH), 2);
  const raw = new Uint8Array(ADDRESS_LENGTH);
  raw.set(body);
  raw.set(secureHash(body).subarray(0, CHECKSUM_LENGTH), body.length);
  return bs58.encode(raw);
}

/** The ledger address of a Curve25519 public key (32 bytes). */
export function addressFromPublicKey(publicKey: Uint8Array, chainId: ChainId): LedgerAddress {
  return addressFromHash20(secureHash(publicKey), chainId);
}

/** The ledger address of an account whose keys come from an Ethereum-style wallet (20-byte address). */
export function addressFromEthAddress(ethAddress: Uint8Array, chainId: ChainId): LedgerAddress {
  if (ethAddress.length !== HASH_LENGTH) throw new RangeError('an Ethereum address has 20 bytes');
  return addressFromHash20(ethAddress, chainId);
}

/** True when `text` is a well-formed ledger address of `chainId` with a correct checksum. Never throws. */
export function isLedgerAddress(text: string, chainId: ChainId): boolean {
  if (text.length < 30 || text.length > 40) return false;
  let raw: Uint8Array;
  try {
    raw = bs58.decode(text);
  } catch {
    return false;
  }
  if (raw.length !== ADDRESS_LENGTH || raw[0] !== ADDRESS_VERSION || raw[1] !== chainIdByte(chainId)) return false;
  const checksum = secureHash(raw.subarray(0, ADDRESS_LENGTH - CHECKSUM_LENGTH)).subarray(0, CHECKSUM_LENGTH);
  return checksum.every((byte, i) => byte === raw[ADDRESS_LENGTH - CHECKSUM_LENGTH + i]);
}
