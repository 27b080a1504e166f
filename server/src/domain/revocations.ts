/**
 * Revoked sign-ins, as this instance knows them: the families revoked recently enough that one of their
 * access tokens may still be alive (an access token lives at most a week and the skew, and none is issued
 * to a revoked family). Learned from the database: all of them whenever listening (re)starts, then each
 * revocation as the database announces it; this instance's own revocations are recorded at once.
 */
import { MAX_LIFETIME_SECONDS } from '@gateway/ledger';
import type { Listening } from '../store/listener.js';
import type { Store } from '../store/store.js';
import { familiesRevokedSince } from '../store/token.js';
import { CLOCK_SKEW_SECONDS } from './password.js';
import { iso, type Revoked } from './token-settings.js';

/** How long a revocation matters: the longest an access token issued before it can live on (seconds). */
const HORIZON_SECONDS = MAX_LIFETIME_SECONDS + CLOCK_SKEW_SECONDS + 60;
const PRUNE_EVERY_MS = 10 * 60_000;

export class RevokedFamilies implements Revoked {
  readonly #revokedAt = new Map<string, number>();
  readonly #listeners = new Set<(family: string) => void>();

  has(family: string): boolean {
    return this.#revokedAt.has(family);
  }

  /**
   * Records a revocation at `at` (seconds); the first record of a family stands, and only it is announced
   * to the listeners (what holds on to a sign-in beyond a request: its open event streams).
   */
  add(family: string, at: number): void {
    if (this.#revokedAt.has(family)) return;
    this.#revokedAt.set(family, at);
    for (const listener of this.#listeners) listener(family);
  }

  /** Calls `listener` with each family revoked from now on; returns the unsubscription. */
  onRevoked(listener: (family: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Forgets the revocations before `before` (seconds): every access token of those families has expired. */
  forgetBefore(before: number): void {
    for (const [family, at] of this.#revokedAt) if (at < before) this.#revokedAt.delete(family);
  }
}

/**
 * Keeps `families` up to date from the store until closed; `ready` once the first reading is done. `warn` is
 * told once when hearing revocations is lost and once when it is back (all of them are read again then).
 */
export function watchRevocations(
  store: Store,
  families: Revoked,
  nowSeconds: () => number,
  warn: (message: string) => void = () => {},
): Listening {
  const listening = store.listen('revoked', {
    changed: (up, reason) =>
      warn(
        up
          ? 'listening for revocations back: every revocation read again'
          : `listening for revocations lost (${reason}): revocations made by other instances reach this one when it is back`,
      ),
    message: (family) => families.add(family, nowSeconds()),
    async connected() {
      for (const { id, revokedAt } of await familiesRevokedSince(store.db, iso(nowSeconds() - HORIZON_SECONDS))) {
        families.add(id, Date.parse(revokedAt) / 1000);
      }
    },
  });
  const pruning = setInterval(() => families.forgetBefore(nowSeconds() - HORIZON_SECONDS), PRUNE_EVERY_MS);
  pruning.unref();
  return {
    ready: listening.ready,
    get up() {
      return listening.up;
    },
    async close() {
      clearInterval(pruning);
      await listening.close();
    },
  };
}
