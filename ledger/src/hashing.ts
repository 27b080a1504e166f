/** The ledger's hashes: blake2b-256, Keccak-256 and their composition, the "secure hash". */
import { blake2b } from '@noble/hashes/blake2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';

/** BLAKE2b with a 32-byte output. */
export const blake2b256 = (data: Uint8Array): Uint8Array => blake2b(data, { dkLen: 32 });

/** Keccak-256 as Ethereum uses it: the original Keccak padding, which SHA3-256 does not share. */
export const keccak256 = (data: Uint8Array): Uint8Array => keccak_256(data);

/** `keccak256(blake2b256(data))`: the hash behind key derivation and addresses. */
export const secureHash = (data: Uint8Array): Uint8Array => keccak256(blake2b256(data));
