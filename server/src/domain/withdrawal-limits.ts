/**
 * Bounds on the withdrawal proxies an account creates: at most `perAccount` in all (the store's count, so
 * every instance holds the same cap) and at most `newPerMinute` new ones a minute. Only a new proxy counts
 * and is limited: a route that has one gets it back, however often it is asked for.
 *
 * Without them, one signed-in client made 200 proxies in half a second with 200 random destinations, each a
 * row and a derived key the operator's signing service must watch for ever.
 */
import { ApiError } from '../errors.js';

/**
 * A count of hits by key in fixed windows: in Redis, shared by every instance, while it answers; in this
 * instance's memory otherwise (plugins/rate-limit.ts, the same counting as the token endpoint's limit).
 */
export interface WindowCounter {
  hit(key: string, windowMs: number, max: number): Promise<{ count: number; ttlMs: number }>;
}

/** The operator's bounds (WITHDRAWAL_ADDRESSES_PER_ACCOUNT, WITHDRAWAL_ADDRESS_RATE_LIMIT). */
export interface WithdrawalBounds {
  /** Proxies an account may hold; one more is refused (403, 10102). */
  perAccount: number;
  /** New proxies an account may create a minute; one more is refused (429, 11100, `Retry-After`). */
  newPerMinute: number;
}

const WINDOW_MS = 60_000;

/**
 * The bounds, with the count of new proxies, and the creations under way on this instance: concurrent
 * first requests for one route share one creation (one proxy, counted once, one answer), so that a client
 * asking for its proxy several times at once is not limited as if it asked for several.
 */
export class WithdrawalLimits {
  readonly #creating = new Map<string, Promise<string>>();

  constructor(
    readonly bounds: WithdrawalBounds,
    private readonly counter: WindowCounter,
  ) {}

  /** The proxy of route `key` as `create` makes it, or as the creation under way for that route does. */
  creation(key: string, create: () => Promise<string>): Promise<string> {
    let pending = this.#creating.get(key);
    if (!pending) {
      pending = create().finally(() => this.#creating.delete(key));
      this.#creating.set(key, pending);
    }
    return pending;
  }

  /** Counts a new proxy of `account` against its rate, or throws the 429 that says when to try again. */
  async admitNew(account: string): Promise<void> {
    const { newPerMinute } = this.bounds;
    const { count, ttlMs } = await this.counter.hit(account, WINDOW_MS, newPerMinute);
    if (count <= newPerMinute) return;
    const retryAfter = Math.max(1, Math.ceil(ttlMs / 1000));
    throw new ApiError(
      'rate_limited',
      `Too many new withdrawal addresses: at most ${newPerMinute} a minute; retry after ${retryAfter} s`,
      { details: { limit: String(newPerMinute) }, headers: { 'retry-after': String(retryAfter) } },
    );
  }

  /** The refusal of a new proxy to an account that holds as many as it may. */
  capReached(): ApiError {
    const { perAccount } = this.bounds;
    return new ApiError(
      'withdrawal_address_limit',
      `This account already has ${perAccount} withdrawal addresses, as many as it may have`,
      { details: { limit: String(perAccount) } },
    );
  }
}
