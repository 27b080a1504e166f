/** The ecosystem's reference library, as a test-only oracle (its ESM build is broken: load it as CJS). */
import { createRequire } from 'node:module';

interface ReferenceCrypto {
  keyPair(seed: string | { seed: Uint8Array; nonce?: number }): { publicKey: string; privateKey: string };
  address(seedOrKeys: string | { publicKey: string }, chainId: string): string;
  signBytes(keys: { privateKey: string }, bytes: Uint8Array, random?: Uint8Array): string;
  verifySignature(publicKey: string, bytes: Uint8Array, signature: string): boolean;
  seedWithNonce(seed: string, nonce: number): { seed: Uint8Array; nonce: number };
  randomSeed(words?: number): string;
}

export const reference: ReferenceCrypto = createRequire(import.meta.url)('@waves/ts-lib-crypto');
