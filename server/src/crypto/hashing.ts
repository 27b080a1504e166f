/** The ledger's hashes: blake2b-256, Keccak-256 (original Keccak, not SHA3) and their composition. */
import { blake2b } from '@noble/hashes/blake2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';

export const blake2b256 = (data: Uint8Array): Uint8Array => blake2b(data, { dkLen: 32 });
export const keccak256 = (data: Uint8Array): Uint8Array => keccak_256(data);
/** `keccak256(blake2b256(data))`: the ledger's "secure hash". */
export const secureHash = (data: Uint8Array): Uint8Array => keccak256(blake2b256(data));
