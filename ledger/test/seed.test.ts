import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import { keyPairFromPrivateKey, keyPairFromSeed } from '../src/seed.js';
import { KNOWN, reference } from './reference.js';

describe('keys from a seed', () => {
  it('match the public known-answer vector', () => {
    const keys = keyPairFromSeed(KNOWN.seed);
    expect(bs58.encode(keys.publicKey)).toBe(KNOWN.publicKey);
    expect(bs58.encode(keys.privateKey)).toBe(KNOWN.privateKey);
    expect(keyPairFromSeed(KNOWN.seed, 0)).toEqual(keys);
  });

  it('match the reference library for 100 random seeds and nonces', () => {
    for (let i = 0; i < 100; i++) {
      const seed = reference.randomSeed(15);
      const nonce = i % 5;
      const theirs = reference.keyPair(reference.seedWithNonce(seed, nonce));
      const ours = keyPairFromSeed(seed, nonce);
      expect(bs58.encode(ours.publicKey)).toBe(theirs.publicKey);
      expect(bs58.encode(ours.privateKey)).toBe(theirs.privateKey);
    }
  });

  it('number accounts by a uint32 nonce', () => {
    expect(keyPairFromSeed(KNOWN.seed, 1).publicKey).not.toEqual(keyPairFromSeed(KNOWN.seed).publicKey);
    expect(() => keyPairFromSeed(KNOWN.seed, 0xffffffff)).not.toThrow();
    for (const nonce of [-1, 1.5, 0x100000000, Number.NaN]) {
      expect(() => keyPairFromSeed(KNOWN.seed, nonce)).toThrow(RangeError);
    }
  });
});

describe('keys from a private key', () => {
  it('give the known public key for the known private key', () => {
    const keys = keyPairFromPrivateKey(bs58.decode(KNOWN.privateKey));
    expect(bs58.encode(keys.publicKey)).toBe(KNOWN.publicKey);
    expect(bs58.encode(keys.privateKey)).toBe(KNOWN.privateKey);
  });

  it('clamp a key that is not clamped, without changing the caller’s bytes', () => {
    const raw = new Uint8Array(32).fill(0xff);
    const keys = keyPairFromPrivateKey(raw);
    expect(keys.privateKey[0]).toBe(0xf8);
    expect(keys.privateKey[31]).toBe(0x7f);
    expect(raw[0]).toBe(0xff);
    expect(keyPairFromPrivateKey(keys.privateKey)).toEqual(keys);
  });

  it('refuse a key of another length', () => {
    expect(() => keyPairFromPrivateKey(new Uint8Array(31))).toThrow(RangeError);
    expect(() => keyPairFromPrivateKey(new Uint8Array(33))).toThrow(RangeError);
  });
});
