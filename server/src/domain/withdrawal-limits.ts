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

export interface WithdrawalLimits {
  /** Proxies an account may hold; one more is refused (403, 10102). */
  perAccount: number;
  /** New proxies an account may create a minute; one more is refused (429, 11100, `Retry-After`). */
  newPerMinute: number;
  counter: WindowCounter;
}

const WINDOW_MS = 60_000;

/** Counts a new proxy of `account` against its rate, or throws the 429 that says when to try again. */
export async function admitNewProxy(limits: WithdrawalLimits, account: string): Promise<void> {
  const { count, ttlMs } = await limits.counter.hit(account, WINDOW_MS, limits.newPerMinute);
  if (count <= limits.newPerMinute) return;
  const retryAfter = Math.max(1, Math.ceil(ttlMs / 1000));
  throw new ApiError(
    'rate_limited',
    `Too many new withdrawal addresses: at most ${limits.newPerMinute} a minute; retry after ${retryAfter} s`,
    { details: { limit: String(limits.newPerMinute) }, headers: { 'retry-after': String(retryAfter) } },
  );
}

/** The refusal of a new proxy to an account that holds as many as it may. */
export function proxyCapReached(limits: WithdrawalLimits): ApiError {
  return new ApiError(
    'withdrawal_address_limit',
    `This account already has ${limits.perAccount} withdrawal addresses, as many as it may have`,
    { details: { limit: String(limits.perAccount) } },
  );
}
