/** The ecosystem's reference library, as a test-only oracle (its ESM build is broken: load it as CJS). */
import { createRequire } from 'node:module';

export const reference: {
  keyPair(seed: string | { seed: Uint8Array; nonce: number }): { publicKey: string; privateKey: string };
  seedWithNonce(seed: string, nonce: number): { seed: Uint8Array; nonce: number };
  randomSeed(words?: number): string;
  address(keys: { publicKey: string }, chainId: string): string;
  verifyAddress(address: string, optional?: { chainId?: string }): boolean;
  blake2b(bytes: Uint8Array): Uint8Array;
  keccak(bytes: Uint8Array): Uint8Array;
} = createRequire(import.meta.url)('@waves/ts-lib-crypto');

/** The reference library's public known-answer vector. */
export const KNOWN = {
  seed: 'uncle push human bus echo drastic garden joke sand warfare sentence fossil title color combine',
  publicKey: '4KxUVD9NtyRJjU3BCvPgJSttoJX7cb3DMdDTNucLN121',
  privateKey: '6zFSymZAoaua3gtJPbAUwM584tRETdKYdEG9BeEnZaGW',
  addressW: '3P9KR33QyXwfTXv8kKtNGZYtgKk3RXSUk36',
  addressT: '3MwJc5iX7QQGq5ciVFdNK7B5KSEGbUCVxDw',
};
