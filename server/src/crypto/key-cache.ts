/**
 * The converted ledger keys of this process (node:crypto Ed25519 key objects), least recently used first
 * out, within a memory budget, with its hit rate for the metrics.
 *
 * An entry costs about 1.2–1.7 KB of resident memory: its map key (a 33-character string) and the key
 * object's wrapper on the V8 heap (≈ 200 bytes), OpenSSL's key outside it, and the allocator's share; measured
 * as the growth of RSS from 10,000 to 50,000 entries, after collections (`node bench/cold-keys.mjs` prints
 * it). The budget is counted at ENTRY_BYTES an entry: 8 MiB holds 5,461 keys, more than the 5,000 accounts
 * of the bench's sign-in storm. The map keeps insertion order; a hit moves its entry to the end (delete,
 * set), so the first entry is the least recently used. A key pushed out costs one conversion (≈ 0.1 ms) when
 * it comes back.
 *
 * Only keys that made a valid signature are put in (see curve25519.ts): keys of failed attempts, however
 * many, never push a real account's key out.
 */
import type { KeyObject } from 'node:crypto';

/** Resident bytes counted for one entry (measured 1.2–1.7 KB). */
export const ENTRY_BYTES = 1536;
/** The cache's memory budget. */
export const KEY_CACHE_BYTES = 8 * 1024 * 1024;

export interface KeyCacheStats {
  /** Verifications that found their key converted already. */
  hits: number;
  /** Verifications that had to check and convert their key. */
  misses: number;
  /** Keys held. */
  size: number;
  /** Resident bytes they are counted at (size × ENTRY_BYTES). */
  bytes: number;
  /** Keys held at most (the budget over ENTRY_BYTES). */
  capacity: number;
}

export class KeyCache {
  readonly capacity: number;
  private readonly entries = new Map<string, KeyObject>();
  private hits = 0;
  private misses = 0;

  constructor(budgetBytes = KEY_CACHE_BYTES) {
    this.capacity = Math.max(1, Math.floor(budgetBytes / ENTRY_BYTES));
  }

  /** The key stored under `id`, made the most recently used; counts a hit or a miss. */
  get(id: string): KeyObject | undefined {
    const key = this.entries.get(id);
    if (key === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.entries.delete(id);
    this.entries.set(id, key);
    return key;
  }

  /** Stores `key` under `id` as the most recently used, dropping the least recently used beyond capacity. */
  set(id: string, key: KeyObject): void {
    this.entries.delete(id);
    this.entries.set(id, key);
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  stats(): KeyCacheStats {
    const size = this.entries.size;
    return { hits: this.hits, misses: this.misses, size, bytes: size * ENTRY_BYTES, capacity: this.capacity };
  }
}
