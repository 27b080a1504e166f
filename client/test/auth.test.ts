import { createRequire } from 'node:module';
import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import { addressOfEthAccount, addressOfPublicKey, signerFromPrivateKey, signerFromSeed } from '../src/auth/ledger.js';
import { passwordFor, typedDataFor } from '../src/auth/password.js';

const reference = createRequire(import.meta.url)('@waves/ts-lib-crypto') as {
  keyPair(seed: unknown): { publicKey: string; privateKey: string };
  seedWithNonce(seed: string, nonce: number): unknown;
  verifySignature(publicKey: string, bytes: Uint8Array, signature: string): boolean;
  randomSeed(): string;
  address(keys: { publicKey: string }, chainId: string): string;
};
const KAV_SEED = 'uncle push human bus echo drastic garden joke sand warfare sentence fossil title color combine';

describe('ledger signers', () => {
  it('derive the known-answer keys and addresses', () => {
    const signer = signerFromSeed(KAV_SEED);
    expect(signer.publicKey).toBe('4KxUVD9NtyRJjU3BCvPgJSttoJX7cb3DMdDTNucLN121');
    expect(signerFromPrivateKey('6zFSymZAoaua3gtJPbAUwM584tRETdKYdEG9BeEnZaGW').publicKey).toBe(signer.publicKey);
    expect(addressOfPublicKey(signer.publicKey, 'W')).toBe('3P9KR33QyXwfTXv8kKtNGZYtgKk3RXSUk36');
    expect(addressOfPublicKey(signer.publicKey, 'T')).toBe('3MwJc5iX7QQGq5ciVFdNK7B5KSEGbUCVxDw');
  });

  it('sign what the reference library verifies, for random seeds and nonces', async () => {
    for (let i = 0; i < 30; i++) {
      const seed = reference.randomSeed();
      const signer = signerFromSeed(seed, { nonce: i % 3 });
      const theirs = reference.keyPair(reference.seedWithNonce(seed, i % 3));
      expect(signer.publicKey).toBe(theirs.publicKey);
      const message = new TextEncoder().encode(`message ${i}`);
      expect(reference.verifySignature(theirs.publicKey, message, bs58.encode(await signer.sign(message)))).toBe(true);
      expect(addressOfPublicKey(signer.publicKey, 'W')).toBe(reference.address({ publicKey: theirs.publicKey }, 'W'));
    }
  });

  it('build the password over the prefixed token text', async () => {
    const signer = signerFromSeed(KAV_SEED);
    const password = await passwordFor(signer, 'W', 'waves.exchange', 1794402800);
    const [expiry, signature = ''] = password.split(':');
    expect(expiry).toBe('1794402800');
    const bytes = new Uint8Array([255, 255, 255, 1, ...new TextEncoder().encode('W:waves.exchange:1794402800')]);
    expect(reference.verifySignature(signer.publicKey, bytes, signature)).toBe(true);
  });

  it('let a wallet provider sign the text (it adds the prefix) and an EIP-712 wallet sign typed data', async () => {
    const texts: string[] = [];
    const provider = await passwordFor(
      {
        kind: 'message',
        publicKey: 'pk',
        signMessage: async (text) => {
          texts.push(text);
          return 'base58sig';
        },
      },
      'T',
      'wx.network',
      123,
    );
    expect([provider, texts]).toEqual(['123:base58sig', ['T:wx.network:123']]);
    const typed: unknown[] = [];
    const eth = await passwordFor(
      {
        kind: 'eip712',
        address: '0xabc',
        signTypedData: async (data) => {
          typed.push(data);
          return Uint8Array.of(1, 255);
        },
      },
      'W',
      'waves.exchange',
      456,
    );
    expect(eth).toBe('456:0x01ff');
    expect(typed).toEqual([typedDataFor('W:waves.exchange:456', 'W')]);
    expect(typedDataFor('x', 'W').domain).toEqual({ chainId: 87 });
  });

  it('gives the ledger address of an Ethereum-style account, with a valid checksum', () => {
    const address = addressOfEthAccount('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', 'W');
    expect(address).toMatch(/^3P/);
    const raw = bs58.decode(address);
    expect(Array.from(raw.subarray(2, 22), (b) => b.toString(16).padStart(2, '0')).join('')).toBe(
      '5aaeb6053f3e94c9b9a09f33669435e7ef1beaed',
    );
    expect(() => addressOfEthAccount('0x123', 'W')).toThrow();
  });
});
