/**
 * The X25519 subgroup check (src/crypto/subgroup.ts) against the check it replaced, @noble/curves' Edwards
 * decompression, `isSmallOrder` and `isTorsionFree` (the former `edwardsKeyOf`, kept here verbatim as the
 * reference): the same answer, and the same Edwards key, on thousands of seeded cases.
 */
import { ED25519_TORSION_SUBGROUP, ed25519 } from '@noble/curves/ed25519.js';
import { bytesToNumberLE, numberToBytesLE } from '@noble/curves/utils.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { describe, expect, it } from 'vitest';
import { edwardsKeyOf } from '../../src/crypto/curve25519.js';
import { inPrimeOrderSubgroup, SUBGROUP_SCALAR } from '../../src/crypto/subgroup.js';

const Point = ed25519.Point;
const Fp = Point.Fp;
const p = Fp.ORDER;
const L = Point.Fn.ORDER;
const SMALL_ORDER_U = [
  0n,
  1n,
  p - 1n,
  325606250916557431795983626356110631294008115727848805560023387167927233504n,
  39382357235489614581723060781553021112529911719440698176882885853963445705823n,
];

/** The former `edwardsKeyOf` (before the X25519 check), the reference. */
function referenceEdwardsKeyOf(publicKey: Uint8Array): Uint8Array | null {
  if (publicKey.length !== 32) return null;
  if ((publicKey[31] ?? 0) & 0x80) return null;
  const u = bytesToNumberLE(publicKey);
  if (u >= p || SMALL_ORDER_U.includes(u)) return null;
  const y = Fp.div(Fp.sub(u, 1n), Fp.add(u, 1n));
  const encoded = numberToBytesLE(y, 32);
  try {
    const point = Point.fromBytes(encoded);
    if (point.isSmallOrder() || !point.isTorsionFree()) return null;
  } catch {
    return null;
  }
  return encoded;
}

/** Deterministic bytes: SHA-256 of (label, counter). */
function seeded(label: string) {
  let counter = 0;
  return () => sha256(new TextEncoder().encode(`${label}:${counter++}`));
}

/** The Montgomery u (32 bytes) of an Edwards point other than the identity: u = (1 + y) / (1 − y). */
const montgomeryOf = (point: InstanceType<typeof Point>) => {
  const y = point.toAffine().y;
  return numberToBytesLE(Fp.div(Fp.add(1n, y), Fp.sub(1n, y)), 32);
};

/** Euler's criterion: whether x is a square mod p (then u is on Curve25519, v² = u³ + 486662·u² + u). */
const isSquare = (x: bigint) => x === 0n || Fp.pow(x, (p - 1n) / 2n) === 1n;
const hex = (bytes: Uint8Array | null) => (bytes ? Buffer.from(bytes).toString('hex') : null);
const torsion = ED25519_TORSION_SUBGROUP.map((h) => Point.fromHex(h)).filter((t) => !t.is0());

/** Checks one key both ways; returns the verdict of the new check. */
function agree(u: Uint8Array): boolean {
  const expected = hex(referenceEdwardsKeyOf(u));
  expect(hex(edwardsKeyOf(u))).toBe(expected);
  return expected !== null;
}

function realPoints(count: number, label: string) {
  const next = seeded(label);
  return Array.from({ length: count }, () => Point.BASE.multiply((bytesToNumberLE(next()) % (L - 1n)) + 1n));
}

describe('the prime-order subgroup check', () => {
  it('uses a scalar X25519 leaves as it is, ≡ −1 mod L and ≡ 0 mod 8; no twist point can pass', () => {
    const k = SUBGROUP_SCALAR;
    expect(k % 8n).toBe(0n);
    expect(k >> 254n).toBe(1n); // bit 254 set, bit 255 clear
    expect((k + 1n) % L).toBe(0n);
    // The twist has 2(p + 1) − 8L points, 4·L' with L' prime; L' divides neither k − 1 nor k + 1.
    const twist = 2n * (p + 1n) - 8n * L;
    expect(twist % 4n).toBe(0n);
    const twistPrime = twist / 4n;
    expect(twistPrime).toBe(2n ** 253n - 55484635554744707071703875581767296995n);
    expect((k - 1n) % twistPrime).not.toBe(0n);
    expect((k + 1n) % twistPrime).not.toBe(0n);
    expect((k - 1n) % 2n).toBe(1n);
  });

  it('accepts real keys as the reference does, with the same Edwards key (1,000 seeded keys)', () => {
    let accepted = 0;
    for (const point of realPoints(1000, 'real')) {
      const u = montgomeryOf(point);
      expect(inPrimeOrderSubgroup(u)).toBe(true);
      if (agree(u)) accepted++;
    }
    expect(accepted).toBe(1000);
  });

  it('refuses every point of small order, on the curve and on the twist, with or without the list', () => {
    const us = [
      ...torsion.map((t) => bytesToNumberLE(montgomeryOf(t))),
      ...SMALL_ORDER_U, // p − 1 is a point of order 4 of the twist
    ];
    expect(torsion.length).toBe(7);
    for (const u of us) {
      const bytes = numberToBytesLE(u, 32);
      expect(inPrimeOrderSubgroup(bytes)).toBe(false);
      expect(agree(bytes)).toBe(false);
    }
  });

  it('refuses P + T for every torsion point T (200 seeded keys × 7)', () => {
    let refused = 0;
    for (const point of realPoints(200, 'mixed')) {
      for (const t of torsion) {
        const u = montgomeryOf(point.add(t));
        expect(inPrimeOrderSubgroup(u)).toBe(false);
        if (!agree(u)) refused++;
      }
    }
    expect(refused).toBe(1400);
  });

  it('refuses non-canonical encodings: u + p, and bit 255 set on real keys', () => {
    for (let u = 0n; u + p < 2n ** 255n; u++) expect(agree(numberToBytesLE(u + p, 32))).toBe(false);
    for (const point of realPoints(100, 'bit255')) {
      const u = montgomeryOf(point);
      u[31] = (u[31] ?? 0) | 0x80;
      expect(agree(u)).toBe(false);
    }
  });

  it('agrees on random u, on the curve and on the twist (3,000 seeded values)', () => {
    const next = seeded('random');
    const counts = { accepted: 0, twist: 0, torsion: 0, canonical: 0 };
    for (let i = 0; i < 3000; i++) {
      const u = next();
      if (i % 2 === 0) u[31] = (u[31] ?? 0) & 0x7f; // mostly canonical; the rest half with bit 255
      const value = bytesToNumberLE(u);
      const canonical = value < p;
      if (canonical) {
        counts.canonical++;
        const onCurve = isSquare(Fp.add(Fp.mul(Fp.sqr(value), Fp.add(value, 486662n)), value));
        if (!onCurve) counts.twist++;
        const inSubgroup = inPrimeOrderSubgroup(u);
        if (inSubgroup) counts.accepted++;
        else if (onCurve) counts.torsion++;
        expect(agree(u)).toBe(inSubgroup);
      } else {
        expect(agree(u)).toBe(false);
      }
    }
    // About half the canonical values lie on the twist, and one curve point in 8 is in the subgroup.
    expect(counts.twist).toBeGreaterThan(counts.canonical * 0.4);
    expect(counts.accepted).toBeGreaterThan(counts.canonical * 0.03);
    expect(counts.torsion).toBeGreaterThan(counts.accepted * 4);
  });
});
