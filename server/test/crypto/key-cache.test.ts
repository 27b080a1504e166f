/**
 * The converted-key cache: least recently used out within its budget, only keys that signed put in, and its
 * hits, misses and size on /metrics.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import { keyCacheStats, verifyLedgerSignature } from '../../src/crypto/curve25519.js';
import { ENTRY_BYTES, KeyCache } from '../../src/crypto/key-cache.js';
import { createMetrics } from '../../src/metrics.js';
import type { Store } from '../../src/store/store.js';
import { reference } from '../support/oracle.js';

const keyObject = () => generateKeyPairSync('ed25519').publicKey;

function signed() {
  const keys = reference.keyPair(reference.randomSeed(15));
  const message = randomBytes(48);
  return {
    publicKey: bs58.decode(keys.publicKey),
    message,
    signature: bs58.decode(reference.signBytes(keys, message)),
  };
}

describe('the key cache', () => {
  it('drops the least recently used key beyond the capacity its byte budget allows', () => {
    const cache = new KeyCache(3 * ENTRY_BYTES + ENTRY_BYTES / 2);
    expect(cache.capacity).toBe(3);
    const [a, b, c, d] = [keyObject(), keyObject(), keyObject(), keyObject()];
    cache.set('a', a);
    cache.set('b', b);
    cache.set('c', c);
    expect(cache.get('a')).toBe(a); // a is now the most recently used: b goes first
    cache.set('d', d);
    expect(cache.get('b')).toBeUndefined();
    expect([cache.get('a'), cache.get('c'), cache.get('d')]).toEqual([a, c, d]);
    expect(cache.stats()).toEqual({ hits: 4, misses: 1, size: 3, bytes: 3 * ENTRY_BYTES, capacity: 3 });
  });

  it('keeps a key once it signed, and no key of a failed attempt', () => {
    const before = keyCacheStats();
    const good = signed();
    expect(verifyLedgerSignature(good.publicKey, good.message, good.signature)).toBe(true);
    expect(verifyLedgerSignature(good.publicKey, good.message, good.signature)).toBe(true);
    const bad = signed();
    const tampered = Uint8Array.from(bad.signature);
    tampered[5] = (tampered[5] ?? 0) ^ 1;
    for (let i = 0; i < 3; i++) expect(verifyLedgerSignature(bad.publicKey, bad.message, tampered)).toBe(false);
    const after = keyCacheStats();
    expect(after.misses - before.misses).toBe(4); // the good key once, the bad key every time
    expect(after.hits - before.hits).toBe(1);
    expect(after.size - before.size).toBe(1);
    expect(after.bytes).toBe(after.size * ENTRY_BYTES);
  });

  it('shows its hits, misses and entries on /metrics', async () => {
    const good = signed();
    verifyLedgerSignature(good.publicKey, good.message, good.signature);
    verifyLedgerSignature(good.publicKey, good.message, good.signature);
    const store = { dialect: 'sqlite', poolState: () => ({ total: 1, idle: 1, waiting: 0 }) } as unknown as Store;
    const metrics = createMetrics(store, {
      database: { up: true, full: false, fullRefusals: 0 },
      catalogue: { staleMs: () => null },
    });
    const text = await metrics.render();
    const { hits, misses, size } = keyCacheStats();
    expect(hits).toBeGreaterThan(0);
    expect(text).toContain(`\ngateway_key_cache_hits_total ${hits}\n`);
    expect(text).toContain(`\ngateway_key_cache_misses_total ${misses}\n`);
    expect(text).toContain(`\ngateway_key_cache_entries ${size}\n`);
    expect(text).toContain('# TYPE gateway_key_cache_hits_total counter');
  });
});
