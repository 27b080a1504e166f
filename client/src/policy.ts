/**
 * Timeouts and retries of one call, in the manner of ky, openai-node and the AWS SDKs: a deadline for the
 * whole call (retries and waits included) that ends it with a `timeout` error; idempotent calls retried on
 * a network error, 429, 502, 503 and 504 with capped exponential backoff and jitter, a `Retry-After`
 * honoured (and not waited for when it asks for longer than `maxDelayMs`: the answer is returned then).
 */
import { GatewayError, retryAfterMs } from './errors.js';

export interface RetryOptions {
  /** Tries after the first one (default 2; 0 for none). */
  retries?: number;
  /** First backoff delay, doubled on each try, with jitter (default 300 ms). */
  baseDelayMs?: number;
  /** Longest wait between tries; a longer `Retry-After` is not waited for (default 10 s). */
  maxDelayMs?: number;
}

export interface CallOptions {
  /** Milliseconds a call may take in all, its retries and waits included (default 30 000; 0 for none). */
  timeoutMs?: number;
  /** Retries of idempotent calls (default `{ retries: 2 }`); `false` for none. */
  retry?: RetryOptions | false;
}

/**
 * What a call may be retried after: `idempotent` (GET, HEAD, the revocation) after a network error, 429,
 * 502, 503 and 504; `unprocessed` (the refresh grant) only after 429 and 503, which the gateway answers
 * without spending the refresh token; `never` (the password grant, any other POST).
 */
export type Retryable = 'idempotent' | 'unprocessed' | 'never';

export const DEFAULT_TIMEOUT_MS = 30_000;

const retryStatus: Record<Retryable, readonly number[]> = {
  idempotent: [429, 502, 503, 504],
  unprocessed: [429, 503],
  never: [],
};

/** Full exponential backoff, capped, with jitter over its upper half (tries of many clients spread out). */
const backoff = (attempt: number, retry: RetryOptions) => {
  const cap = Math.min(retry.maxDelayMs ?? 10_000, (retry.baseDelayMs ?? 300) * 2 ** attempt);
  return cap / 2 + (Math.random() * cap) / 2;
};

/** Settles as `promise`, or rejects with the signal's reason as soon as it aborts. */
function raced<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    if (signal.aborted) abort();
    signal.addEventListener('abort', abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/** The one error of a call that got no answer: the deadline's, the caller's abort, or the network's. */
function failureOf(error: unknown, timedOut: boolean, caller: AbortSignal | null | undefined): GatewayError {
  if (error instanceof GatewayError && (!timedOut || error.kind === 'timeout')) return error;
  if (timedOut) return new GatewayError(0, undefined, 'no answer in time', { kind: 'timeout', cause: error });
  if (caller?.aborted) {
    const reason = caller.reason as { name?: string } | undefined;
    const kind = reason?.name === 'TimeoutError' ? 'timeout' : 'abort';
    return new GatewayError(0, undefined, kind === 'abort' ? 'aborted' : 'no answer in time', { kind, cause: reason });
  }
  const text = error instanceof Error ? error.message : String(error);
  return new GatewayError(0, undefined, `no answer: ${text}`, { kind: 'network', cause: error });
}

/**
 * Runs `attempt` under the options' deadline and retries. `attempt` gets the signal to pass on (the
 * caller's and the deadline's). The result of the last try is returned, failed or not; a try with no
 * answer throws a GatewayError of kind `network`, `timeout` or `abort`. With `linger` (a stream), the
 * caller's signal stays tied to the answer after it arrives.
 */
export async function withPolicy<R extends { response: Response }>(
  attempt: (signal: AbortSignal) => Promise<R>,
  retryable: Retryable,
  options: CallOptions,
  caller?: AbortSignal | null,
  linger = false,
): Promise<R> {
  const controller = new AbortController();
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const deadline = timeoutMs > 0 ? Date.now() + timeoutMs : Number.POSITIVE_INFINITY;
  let timedOut = false;
  const timer =
    timeoutMs > 0 && Number.isFinite(timeoutMs)
      ? setTimeout(() => {
          timedOut = true;
          controller.abort(new GatewayError(0, undefined, `no answer in ${timeoutMs} ms`, { kind: 'timeout' }));
        }, timeoutMs)
      : undefined;
  const abort = () => controller.abort(caller?.reason);
  if (caller?.aborted) abort();
  else caller?.addEventListener('abort', abort, { once: true });
  const retry = options.retry === false ? undefined : (options.retry ?? {});
  const retries = retry && retryable !== 'never' ? (retry.retries ?? 2) : 0;
  /** Waits before the next try; false when the deadline would pass first. */
  const wait = async (ms: number) => {
    if (Date.now() + ms >= deadline) return false;
    await raced(new Promise((resolve) => setTimeout(resolve, ms)), controller.signal);
    return true;
  };
  try {
    for (let tried = 0; ; tried++) {
      let result: R;
      try {
        result = await raced(attempt(controller.signal), controller.signal);
      } catch (error) {
        const failure = failureOf(error, timedOut, caller);
        // A GatewayError from within (a refresh that failed) is not retried: the refresh decides for itself.
        const again = failure.kind === 'network' && failure !== error && retryable === 'idempotent';
        if (!again || tried >= retries || !retry || !(await wait(backoff(tried, retry)))) throw failure;
        continue;
      }
      const { response } = result;
      if (tried >= retries || !retry || !retryStatus[retryable].includes(response.status)) return result;
      const asked = retryAfterMs(response);
      if (asked !== undefined && asked > (retry.maxDelayMs ?? 10_000)) return result;
      if (!(await wait(asked ?? backoff(tried, retry)))) return result;
    }
  } catch (error) {
    throw failureOf(error, timedOut, caller);
  } finally {
    clearTimeout(timer);
    if (!linger) caller?.removeEventListener('abort', abort);
  }
}
