/**
 * Whether the database answers, as this instance sees it. It is lost at the first failure that says the
 * database cannot be reached, and back when a probe (every second while lost) answers: one warning line
 * when it is lost, with the failure's stack once, and one line when it is back, however many requests
 * failed in between. Requests that fail meanwhile answer 503 and log nothing more than their access line.
 */
import type { Store } from './schema.js';
import { databaseUnavailable } from './unavailable.js';

export interface DatabaseLog {
  warn(object: object, message: string): void;
}

export interface DatabaseWatch {
  /** Whether the database answered last time this instance asked. */
  readonly up: boolean;
  /** Reports a failure; one that says the database is unreachable marks it lost. Returns whether it did. */
  failed(error: unknown): boolean;
  close(): void;
}

export function watchDatabase(
  store: Pick<Store, 'ping'>,
  log: DatabaseLog,
  options: { now?: () => number; probeMs?: number } = {},
): DatabaseWatch {
  const now = options.now ?? Date.now;
  const probeMs = options.probeMs ?? 1000;
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
    failed(error) {
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
    },
  };
}
