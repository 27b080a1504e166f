import { randomBytes } from 'node:crypto';
import { bytesToHex } from '@noble/hashes/utils.js';
import { describe, expect, it } from 'vitest';
import { blake2b256, keccak256, secureHash } from '../src/hashing.js';
import { reference } from './reference.js';

const empty = new Uint8Array(0);

describe('hashing', () => {
  it('gives the published digests of the empty input', () => {
    expect(bytesToHex(blake2b256(empty))).toBe('0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8');
    expect(bytesToHex(keccak256(empty))).toBe('c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
  });

  it('uses the original Keccak, not SHA3-256 (whose empty digest is a7ffc6f8…)', () => {
    expect(bytesToHex(keccak256(empty))).not.toMatch(/^a7ffc6f8/);
  });

  it('composes the secure hash as keccak256 of blake2b256', () => {
    const data = new TextEncoder().encode('ledger');
    expect(secureHash(data)).toEqual(keccak256(blake2b256(data)));
  });

  it('matches the reference library for 100 random inputs', () => {
    for (let i = 0; i < 100; i++) {
      const data = Uint8Array.from(randomBytes(i * 3));
      expect(bytesToHex(blake2b256(data))).toBe(bytesToHex(reference.blake2b(data)));
      expect(bytesToHex(keccak256(data))).toBe(bytesToHex(reference.keccak(data)));
    }
  });
});
