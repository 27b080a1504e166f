import { createPublicKey, randomBytes, verify } from 'node:crypto';
import { keyPairFromSeed } from '@gateway/ledger';
import { ED25519_TORSION_SUBGROUP, ed25519 } from '@noble/curves/ed25519.js';
import { bytesToNumberLE, numberToBytesLE } from '@noble/curves/utils.js';
import { sha512 } from '@noble/hashes/sha2.js';
import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import { edwardsKeyOf, verifyLedgerSignature } from '../../src/crypto/curve25519.js';
import { reference } from '../support/oracle.js';

const KAV_SEED = 'uncle push human bus echo drastic garden joke sand warfare sentence fossil title color combine';
const L = ed25519.Point.Fn.ORDER;
const b58 = (bytes: Uint8Array) => bs58.encode(bytes);

describe('ledger signatures', () => {
  it('verify what the reference library signs (200 random messages) and nothing tampered', () => {
    for (let i = 0; i < 200; i++) {
      const seed = reference.randomSeed(15);
      const keys = reference.keyPair(seed);
      const message = randomBytes(1 + (i % 300));
      const signature = bs58.decode(reference.signBytes(keys, message));
      const publicKey = bs58.decode(keys.publicKey);
      expect(verifyLedgerSignature(publicKey, message, signature)).toBe(true);
      const tamperedMessage = Uint8Array.from(message);
      tamperedMessage[i % message.length] = (tamperedMessage[i % message.length] ?? 0) ^ 1;
      expect(verifyLedgerSignature(publicKey, tamperedMessage, signature)).toBe(false);
      const tamperedSignature = Uint8Array.from(signature);
      tamperedSignature[i % 32] = (tamperedSignature[i % 32] ?? 0) ^ 4;
      expect(verifyLedgerSignature(publicKey, message, tamperedSignature)).toBe(false);
    }
  });

  it('accept signatures the reference library verifies, for keys from seeds with nonces', () => {
    const keys = reference.keyPair(reference.seedWithNonce(KAV_SEED, 3));
    const message = new TextEncoder().encode('W:waves.exchange:1794402800');
    const signature = reference.signBytes(keys, message);
    expect(reference.verifySignature(keys.publicKey, message, signature)).toBe(true);
    expect(verifyLedgerSignature(bs58.decode(keys.publicKey), message, bs58.decode(signature))).toBe(true);
  });

  it('refuse forgeries for small-order keys that the reference library accepts', () => {
    // u = 0 ("1111…1" in base58) is the Edwards point (0, -1) of order 2: k·A is the identity whenever k is
    // even, so (R = r·B, S = r) verifies for about half of all r, with no private key at all.
    const zeroKey = new Uint8Array(32);
    let forged = 0;
    let refused = 0;
    for (let tries = 0; tries < 40; tries++) {
      const message = randomBytes(32);
      const r = bytesToNumberLE(randomBytes(32)) % L;
      const R = ed25519.Point.BASE.multiply(r).toBytes();
      const signature = new Uint8Array(64);
      signature.set(R);
      signature.set(numberToBytesLE(r, 32), 32);
      // The Edwards key of u = 0 is y = -1; the reference puts the key's sign bit in signature[63].
      if (reference.verifySignature(b58(zeroKey), message, b58(signature))) {
        forged++;
        if (!verifyLedgerSignature(zeroKey, message, signature)) refused++;
      }
    }
    expect(forged).toBeGreaterThan(0);
    expect(refused).toBe(forged);
  });

  it('refuse every small-order and non-canonical key outright', () => {
    const p = ed25519.Point.Fp.ORDER;
    const smallOrder = [
      0n,
      1n,
      p - 1n,
      325606250916557431795983626356110631294008115727848805560023387167927233504n,
      39382357235489614581723060781553021112529911719440698176882885853963445705823n,
    ];
    for (const u of smallOrder) expect(edwardsKeyOf(numberToBytesLE(u, 32))).toBeNull();
    expect(edwardsKeyOf(numberToBytesLE(p, 32))).toBeNull();
    expect(edwardsKeyOf(numberToBytesLE(p + 1n, 32))).toBeNull();
  });

  it('refuse mixed-order keys (A + T) whose forged signatures a verifier without the subgroup check accepts', () => {
    // The owner of A = a·B signs for A + T (T of small order, another key, hence another address): with
    // k = H(R ‖ A+T ‖ m) ≡ 0 (mod 8), k·(A + T) = k·A and S = r + k·a verifies. One R in eight will do.
    const { privateKey } = keyPairFromSeed(KAV_SEED, 7);
    const a = bytesToNumberLE(privateKey) % L;
    const A = ed25519.Point.BASE.multiply(a);
    const Fp = ed25519.Point.Fp;
    const torsion = ED25519_TORSION_SUBGROUP.map((h) => ed25519.Point.fromHex(h)).filter((t) => !t.is0());
    let acceptedWithoutCheck = 0;
    for (const T of torsion) {
      const forgedKey = A.add(T);
      const encoded = forgedKey.toBytes();
      const y = forgedKey.toAffine().y;
      const u = numberToBytesLE(Fp.div(Fp.add(1n, y), Fp.sub(1n, y)), 32);
      const message = randomBytes(40);
      let signature: Uint8Array | null = null;
      for (let tries = 0; !signature && tries < 200; tries++) {
        const r = bytesToNumberLE(randomBytes(32)) % L;
        const R = ed25519.Point.BASE.multiply(r).toBytes();
        const k = bytesToNumberLE(sha512(new Uint8Array([...R, ...encoded, ...message]))) % L;
        if (k % 8n === 0n) signature = new Uint8Array([...R, ...numberToBytesLE((r + k * a) % L, 32)]);
      }
      if (!signature) throw new Error('no R found');
      const jwk = { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(encoded).toString('base64url') };
      if (verify(null, message, createPublicKey({ key: jwk, format: 'jwk' }), signature)) acceptedWithoutCheck++;
      signature[63] = (signature[63] ?? 0) | ((encoded[31] ?? 0) & 0x80);
      expect(verifyLedgerSignature(u, message, signature)).toBe(false);
      expect(edwardsKeyOf(u)).toBeNull();
    }
    expect(acceptedWithoutCheck).toBe(7);
  });

  it('refuse a key with bit 255 set (another text for the same key, hence another address)', () => {
    const keys = reference.keyPair(KAV_SEED);
    const message = randomBytes(40);
    const signature = bs58.decode(reference.signBytes(keys, message));
    const publicKey = bs58.decode(keys.publicKey);
    const aliased = Uint8Array.from(publicKey);
    aliased[31] = (aliased[31] ?? 0) | 0x80;
    expect(verifyLedgerSignature(publicKey, message, signature)).toBe(true);
    expect(verifyLedgerSignature(aliased, message, signature)).toBe(false);
  });

  it('refuse a malleable signature (S + L) that still verifies arithmetically', () => {
    const keys = reference.keyPair(KAV_SEED);
    const message = randomBytes(40);
    const signature = bs58.decode(reference.signBytes(keys, message));
    const signBit = (signature[63] ?? 0) & 0x80;
    const s = bytesToNumberLE(Uint8Array.from(signature.subarray(32), (b, i) => (i === 31 ? b & 0x7f : b)));
    const malleable = Uint8Array.from(signature);
    malleable.set(numberToBytesLE(s + L, 32), 32);
    malleable[63] = (malleable[63] ?? 0) | signBit;
    expect(verifyLedgerSignature(bs58.decode(keys.publicKey), message, signature)).toBe(true);
    expect(verifyLedgerSignature(bs58.decode(keys.publicKey), message, malleable)).toBe(false);
  });

  it('refuse wrong lengths', () => {
    const keys = reference.keyPair(KAV_SEED);
    const message = randomBytes(10);
    const signature = bs58.decode(reference.signBytes(keys, message));
    const publicKey = bs58.decode(keys.publicKey);
    expect(verifyLedgerSignature(publicKey.subarray(1), message, signature)).toBe(false);
    expect(verifyLedgerSignature(publicKey, message, signature.subarray(1))).toBe(false);
    expect(verifyLedgerSignature(publicKey, message, new Uint8Array([...signature, 0]))).toBe(false);
  });

  it('verifies a signature made with plain Ed25519 arithmetic on the clamped key (the ledger scheme)', () => {
    // Independent re-derivation of the scheme with @noble/curves, deterministic variant.
    const { privateKey, publicKey } = keyPairFromSeed(KAV_SEED, 0);
    const a = bytesToNumberLE(privateKey) % L;
    const A = ed25519.Point.BASE.multiply(a).toBytes();
    const message = new TextEncoder().encode('hello ledger');
    const r = bytesToNumberLE(sha512(new Uint8Array([...privateKey, ...message]))) % L;
    const R = ed25519.Point.BASE.multiply(r).toBytes();
    const k = bytesToNumberLE(sha512(new Uint8Array([...R, ...A, ...message]))) % L;
    const S = (r + k * a) % L;
    const signature = new Uint8Array([...R, ...numberToBytesLE(S, 32)]);
    signature[63] = (signature[63] ?? 0) | ((A[31] ?? 0) & 0x80);
    expect(verifyLedgerSignature(publicKey, message, signature)).toBe(true);
    expect(reference.verifySignature(b58(publicKey), message, b58(signature))).toBe(true);
  });
});
