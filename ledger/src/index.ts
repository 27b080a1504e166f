/**
 * The exchange ledger's primitives, shared by the client, the server and the benchmark: hashing, keys from
 * a seed, addresses, the token message, chain ids and lengths. Runs in browsers and Node alike: no Node
 * built-ins. Signing lives in the client and strict verification in the server.
 */
export {
  addressFromEthAddress,
  addressFromPublicKey,
  isLedgerAddress,
} from './address.js';
export { type ChainId, chainIdByte } from './chain.js';
export {
  ADDRESS_CHECKSUM_LENGTH,
  ADDRESS_HASH_LENGTH,
  ADDRESS_LENGTH,
  ADDRESS_VERSION,
  ETH_ADDRESS_LENGTH,
  MAX_LIFETIME_SECONDS,
  PRIVATE_KEY_LENGTH,
  PUBLIC_KEY_LENGTH,
  SIGNATURE_LENGTH,
} from './constants.js';
export { blake2b256, keccak256, secureHash } from './hashing.js';
export { ledgerMessageBytes, MESSAGE_PREFIX, tokenText } from './message.js';
export { keyPairFromPrivateKey, keyPairFromSeed, type LedgerKeyPair } from './seed.js';
export type { Base58, LedgerAddress } from './types.js';
