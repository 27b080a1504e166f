/**
 * Whether the database answers, as this instance sees it. It is lost at the first failure that says the
 * database cannot be reached, and back when a probe (every second while lost) answers: one warning line
 * when it is lost, with the failure's stack once, and one line when it is back, however many requests
 * failed in between. Requests that fail meanwhile answer 503 and log nothing more than their access line.
 *
 * Its storage full is an outage of writes only (reads go on): full at the first write refused for it, one
 * line without a stack; no longer full once no write was refused for it for `fullQuietMs` and, where the
 * store can tell (SQLite), the free space is past `freeBytesWanted`: one line again.
 */
import type { Store } from './schema.js';
import { databaseUnavailable, storageFull } from './unavailable.js';

export interface DatabaseLog {
  warn(object: object, message: string): void;
}

export interface DatabaseWatch {
  /** Whether the database answered last time this instance asked. */
  readonly up: boolean;
  /** Whether writes are refused for a full storage (since the first such refusal, until it passed). */
  readonly full: boolean;
  /** Writes refused for a full storage, in all. */
  readonly fullRefusals: number;
  /** Reports a failure; one that says the database is unreachable marks it lost. Returns whether it did. */
  failed(error: unknown): boolean;
  close(): void;
}

/** How long no write may be refused for a full storage before it counts as no longer full (ms). */
const FULL_QUIET_MS = 10_000;
/** The free space (bytes) past which a full SQLite storage counts as freed: a few checkpoints' worth. */
const FREE_BYTES_WANTED = 16 * 1024 * 1024;

export function watchDatabase(
  store: Pick<Store, 'ping' | 'freeBytes'>,
  log: DatabaseLog,
  options: { now?: () => number; probeMs?: number; fullQuietMs?: number; freeBytesWanted?: number } = {},
): DatabaseWatch {
  const now = options.now ?? Date.now;
  const probeMs = options.probeMs ?? 1000;
  const fullQuietMs = options.fullQuietMs ?? FULL_QUIET_MS;
  const freeBytesWanted = options.freeBytesWanted ?? FREE_BYTES_WANTED;
  let fullSince: number | null = null;
  let lastFullAt = 0;
  let fullRefusals = 0;
  let refusedWhileFull = 0;
  let fullProbe: NodeJS.Timeout | undefined;
  const checkFull = async () => {
    if (fullSince === null || closed || now() - lastFullAt < fullQuietMs) return;
    const free = await store.freeBytes().catch(() => null);
    if (free !== null && free < freeBytesWanted) return;
    if (fullSince === null || closed) return;
    const seconds = ((now() - fullSince) / 1000).toFixed(1);
    log.warn({}, `storage no longer full after ${seconds} s (${refusedWhileFull} writes refused meanwhile)`);
    fullSince = null;
    clearInterval(fullProbe);
    fullProbe = undefined;
  };
  const fullFailure = (error: unknown) => {
    fullRefusals += 1;
    lastFullAt = now();
    if (fullSince !== null) {
      refusedWhileFull += 1;
      return;
    }
    if (closed) return;
    fullSince = now();
    refusedWhileFull = 1;
    const message = (error instanceof Error && error.message.split('\n')[0]) || String(error);
    log.warn(
      { code: (error as { code?: unknown }).code },
      `storage full: ${message}; writes answer 503 (11203) until space is freed, reads go on`,
    );
    fullProbe = setInterval(() => void checkFull(), probeMs);
    fullProbe.unref();
  };
  let lostAt: number | null = null;
  let failures = 0;
  let probe: NodeJS.Timeout | undefined;
  let probing = false;
  let closed = false;
  const check = async () => {
    if (probing || closed) return;
    probing = true;
    try {
      if ((await store.ping()) && lostAt !== null && !closed) {
        const seconds = ((now() - lostAt) / 1000).toFixed(1);
        log.warn({}, `database back after ${seconds} s (${failures} failed operations meanwhile)`);
        lostAt = null;
        clearInterval(probe);
        probe = undefined;
      }
    } finally {
      probing = false;
    }
  };
  return {
    get up() {
      return lostAt === null;
    },
    get full() {
      return fullSince !== null;
    },
    get fullRefusals() {
      return fullRefusals;
    },
    failed(error) {
      if (storageFull(error)) {
        fullFailure(error);
        return true;
      }
      if (!databaseUnavailable(error)) return false;
      if (lostAt !== null) {
        failures += 1;
        return true;
      }
      if (closed) return true;
      lostAt = now();
      failures = 1;
      const message = (error instanceof Error && error.message.split('\n')[0]) || String(error);
      log.warn({ err: error }, `database lost: ${message}; answering 503 where it is needed until it is back`);
      probe = setInterval(() => void check(), probeMs);
      probe.unref();
      return true;
    },
    close() {
      closed = true;
      clearInterval(probe);
      clearInterval(fullProbe);
    },
  };
}
