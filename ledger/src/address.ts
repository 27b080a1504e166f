/**
 * Ledger addresses: `raw = version ‖ chainIdByte ‖ hash20`, then `base58(raw ‖ secureHash(raw)[0..4])`,
 * 26 bytes. `hash20` is the first 20 bytes of the secure hash of a Curve25519 public key, or, for an
 * account whose keys come from an Ethereum-style wallet, the 20 bytes of its Ethereum address.
 */
import bs58 from 'bs58';
import { type ChainId, chainIdByte } from './chain.js';
import {
  ADDRESS_CHECKSUM_LENGTH,
  ADDRESS_HASH_LENGTH,
  ADDRESS_LENGTH,
  ADDRESS_VERSION,
  ETH_ADDRESS_LENGTH,
} from './constants.js';
import { secureHash } from './hashing.js';
import type { LedgerAddress } from './types.js';

/** Base58 text of 26 bytes is 33 to 36 characters; anything far outside is refused before decoding. */
const MIN_TEXT_LENGTH = 30;
const MAX_TEXT_LENGTH = 40;
const BODY_LENGTH = ADDRESS_LENGTH - ADDRESS_CHECKSUM_LENGTH;

function addressFromHash20(hash20: Uint8Array, chainId: ChainId): LedgerAddress {
  const raw = new Uint8Array(ADDRESS_LENGTH);
  raw[0] = ADDRESS_VERSION;
  raw[1] = chainIdByte(chainId);
  raw.set(hash20.subarray(0, ADDRESS_HASH_LENGTH), 2);
  raw.set(secureHash(raw.subarray(0, BODY_LENGTH)).subarray(0, ADDRESS_CHECKSUM_LENGTH), BODY_LENGTH);
  return bs58.encode(raw);
}

/** The address of a Curve25519 public key (32 bytes) on a chain. */
export function addressFromPublicKey(publicKey: Uint8Array, chainId: ChainId): LedgerAddress {
  return addressFromHash20(secureHash(publicKey), chainId);
}

/** The address of an account whose keys come from an Ethereum-style wallet (its 20-byte address). Throws on another length. */
export function addressFromEthAddress(ethAddress: Uint8Array, chainId: ChainId): LedgerAddress {
  if (ethAddress.length !== ETH_ADDRESS_LENGTH) throw new RangeError('an Ethereum address has 20 bytes');
  return addressFromHash20(ethAddress, chainId);
}

/** True when `text` is a well-formed address of `chainId` with a correct checksum. Never throws. */
export function isLedgerAddress(text: string, chainId: ChainId): boolean {
  if (text.length < MIN_TEXT_LENGTH || text.length > MAX_TEXT_LENGTH) return false;
  let raw: Uint8Array;
  try {
    raw = bs58.decode(text);
  } catch {
    return false;
  }
  if (raw.length !== ADDRESS_LENGTH || raw[0] !== ADDRESS_VERSION || raw[1] !== chainIdByte(chainId)) return false;
  const checksum = secureHash(raw.subarray(0, BODY_LENGTH)).subarray(0, ADDRESS_CHECKSUM_LENGTH);
  return checksum.every((byte, i) => byte === raw[BODY_LENGTH + i]);
}
