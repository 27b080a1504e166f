/**
 * Retrying an operation through an outage: capped exponential backoff with jitter, for at most a given
 * time, only for the failures the caller calls transient. What a failure is (a database that does not
 * answer) and what to say while waiting are the caller's: this module knows neither.
 */

export interface Backoff {
  /** The first pause, ms. */
  firstMs: number;
  /** The longest pause, ms. */
  capMs: number;
}

/** 250 ms, doubling to 5 s: a short outage costs little, a long one a try every few seconds. */
export const DEFAULT_BACKOFF: Backoff = { firstMs: 250, capMs: 5000 };

/**
 * The pause before try `retry` (0 for the first retry): `firstMs` doubled each time up to `capMs`, of which
 * a random half is taken away (so that many clients cut off at once do not all come back at once).
 */
export function backoffDelay(retry: number, backoff: Backoff = DEFAULT_BACKOFF, random = Math.random): number {
  const full = Math.min(backoff.capMs, backoff.firstMs * 2 ** Math.min(retry, 30));
  return Math.round(full / 2 + (full / 2) * random());
}

export interface RetryEvents {
  /** The first transient failure: the waiting starts. */
  lost?(error: unknown): void;
  /** Another transient failure, `waitedMs` after the first. */
  failed?(error: unknown, waitedMs: number): void;
  /** It succeeded after `waitedMs` of failures. */
  back?(waitedMs: number): void;
}

export interface RetryOptions extends RetryEvents {
  /** The longest time to keep trying after the first failure, ms; 0: no retry at all. */
  retryForMs: number;
  /** Whether a failure is worth waiting for; any other is thrown at once. */
  transient(error: unknown): boolean;
  backoff?: Backoff;
  /** Stops the waiting (RetryGaveUp, `stopped`). */
  signal?: AbortSignal;
  now?: () => number;
  random?: () => number;
}

/** The operation kept failing for the whole time allowed (or a signal stopped the waiting). */
export class RetryGaveUp extends Error {
  constructor(
    /** The last failure. */
    readonly last: unknown,
    readonly waitedMs: number,
    readonly stopped: boolean,
  ) {
    super(stopped ? 'stopped while waiting to retry' : `gave up retrying after ${waitedMs} ms`, { cause: last });
  }
}

/** A pause that a signal ends early; resolves to whether it was stopped. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (stopped: boolean) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(stopped);
    };
    const onAbort = () => done(true);
    const timer = setTimeout(() => done(false), ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Runs `attempt` until it succeeds; a transient failure is tried again after a pause, for at most
 * `retryForMs` after the first one (a last try comes at the end of that time), then RetryGaveUp.
 */
export async function retrying<T>(attempt: () => Promise<T>, options: RetryOptions): Promise<T> {
  const now = options.now ?? Date.now;
  let firstFailure: number | null = null;
  for (let retry = 0; ; retry++) {
    try {
      const result = await attempt();
      if (firstFailure !== null) options.back?.(now() - firstFailure);
      return result;
    } catch (error) {
      if (options.retryForMs <= 0 || !options.transient(error)) throw error;
      const failedAt = now();
      if (firstFailure === null) {
        firstFailure = failedAt;
        options.lost?.(error);
      } else {
        options.failed?.(error, failedAt - firstFailure);
      }
      const left = firstFailure + options.retryForMs - failedAt;
      if (left <= 0 || options.signal?.aborted) throw new RetryGaveUp(error, failedAt - firstFailure, left > 0);
      const delay = Math.min(left, backoffDelay(retry, options.backoff, options.random));
      if (await pause(delay, options.signal)) throw new RetryGaveUp(error, now() - firstFailure, true);
    }
  }
}
