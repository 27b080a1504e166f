/**
 * The ledger-key cache's metrics (crypto/key-cache.ts), read at scrape time: verifications that found their
 * key converted (hits) or converted it (misses), and the keys held. The cache is the process's, shared by
 * every app of the process.
 */
import client from 'prom-client';
import { keyCacheStats } from './crypto/curve25519.js';
import type { KeyCacheStats } from './crypto/key-cache.js';

export function registerKeyCacheMetrics(registry: client.Registry, stats: () => KeyCacheStats = keyCacheStats): void {
  const counter = (name: string, help: string, read: (s: KeyCacheStats) => number) =>
    new client.Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(read(stats()));
      },
    });
  counter('gateway_key_cache_hits_total', 'Ledger signature checks whose key was converted already.', (s) => s.hits);
  counter(
    'gateway_key_cache_misses_total',
    'Ledger signature checks that checked and converted their key (a key not seen, or pushed out).',
    (s) => s.misses,
  );
  new client.Gauge({
    name: 'gateway_key_cache_entries',
    help: 'Converted ledger keys held in memory (about 1 KiB each; at most the capacity).',
    registers: [registry],
    collect() {
      this.set(stats().size);
    },
  });
}
