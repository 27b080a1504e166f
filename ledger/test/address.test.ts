import { randomBytes } from 'node:crypto';
import { hexToBytes } from '@noble/hashes/utils.js';
import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import { addressFromEthAddress, addressFromPublicKey, isLedgerAddress } from '../src/address.js';
import { keyPairFromSeed } from '../src/seed.js';
import { KNOWN, reference } from './reference.js';

describe('addresses', () => {
  it('match the public known-answer vector on both chains', () => {
    const publicKey = bs58.decode(KNOWN.publicKey);
    expect(addressFromPublicKey(publicKey, 'W')).toBe(KNOWN.addressW);
    expect(addressFromPublicKey(publicKey, 'T')).toBe(KNOWN.addressT);
  });

  it('match the reference library for 100 random seeds and nonces', () => {
    for (let i = 0; i < 100; i++) {
      const keys = keyPairFromSeed(reference.randomSeed(15), i % 5);
      const chainId = i % 2 ? 'W' : 'T';
      const address = addressFromPublicKey(keys.publicKey, chainId);
      expect(address).toBe(reference.address({ publicKey: bs58.encode(keys.publicKey) }, chainId));
      expect(address).toMatch(chainId === 'W' ? /^3P/ : /^3[MN]/);
    }
  });

  it('carry an Ethereum-style account’s 20 bytes in place of the public-key hash', () => {
    const eth = hexToBytes('5aaeb6053f3e94c9b9a09f33669435e7ef1beaed');
    const address = addressFromEthAddress(eth, 'W');
    expect(bs58.decode(address).subarray(0, 22)).toEqual(Uint8Array.of(1, 87, ...eth));
    expect(isLedgerAddress(address, 'W')).toBe(true);
    expect(reference.verifyAddress(address, { chainId: 'W' })).toBe(true);
    expect(() => addressFromEthAddress(eth.subarray(1), 'W')).toThrow(RangeError);
  });
});

describe('address validity', () => {
  it('accepts an address on its own chain only', () => {
    expect(isLedgerAddress(KNOWN.addressW, 'W')).toBe(true);
    expect(isLedgerAddress(KNOWN.addressT, 'T')).toBe(true);
    expect(isLedgerAddress(KNOWN.addressW, 'T')).toBe(false);
    expect(isLedgerAddress(KNOWN.addressT, 'W')).toBe(false);
  });

  it('refuses a changed character, a bad checksum, another version and other lengths', () => {
    expect(isLedgerAddress('3P9KR33QyXwfTXv8kKtNGZYtgKk3RXSUk37', 'W')).toBe(false);
    expect(isLedgerAddress('3P9KR33QyXwfTXv8kKtNGZYtgKk3RXSUk3O', 'W')).toBe(false);
    const raw = bs58.decode(KNOWN.addressW);
    for (let i = 0; i < raw.length; i++) {
      const tampered = Uint8Array.from(raw);
      tampered[i] = (tampered[i] ?? 0) ^ 1;
      expect(isLedgerAddress(bs58.encode(tampered), 'W')).toBe(false);
    }
    expect(isLedgerAddress(bs58.encode(raw.subarray(1)), 'W')).toBe(false);
    expect(isLedgerAddress(bs58.encode(Uint8Array.of(...raw, 0)), 'W')).toBe(false);
  });

  it('never throws, and agrees with the reference library on random text', () => {
    for (const text of ['', '0OIl', 'x'.repeat(10_000), '\u0000'.repeat(35), '3P9KR33QyXwfTXv8kKtNGZYtgKk3RXSUk36 ']) {
      expect(isLedgerAddress(text, 'W')).toBe(false);
    }
    for (let i = 0; i < 100; i++) {
      const text = bs58.encode(Uint8Array.of(1, 87, ...randomBytes(24)));
      expect(isLedgerAddress(text, 'W')).toBe(reference.verifyAddress(text, { chainId: 'W' }));
    }
  });
});
