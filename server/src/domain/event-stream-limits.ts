/**
 * How many event streams an instance holds open: a few per account, and in all as many as its memory
 * allows. A stream that would pass either limit is refused at once, before anything is read or held for
 * it: an account that opens thousands of streams gets its few, and an instance full of streams keeps
 * answering everything else instead of running out of heap (one process died at 8,000 streams under a
 * 160 MB heap before these limits).
 */
import { ApiError } from '../errors.js';
import { oldGenerationLimit } from '../lib/heap.js';

/**
 * What one open stream costs the heap, with a margin: measured at 16 KiB of heap kept (after a full
 * collection) and 15 to 17 KiB of resident memory a stream, with 3,000 and 6,000 streams open (its socket,
 * request and reply, the stream and its timers; `node --expose-gc bench/streams-memory.mjs`). Taken three
 * times over for what a collection has not reclaimed yet and what a stream buffers for a slow reader.
 */
export const HEAP_PER_STREAM_BYTES = 48 * 1024;
/** The share of the heap open streams may take; the rest is for the requests and the caches. */
export const STREAMS_HEAP_SHARE = 0.5;
/** What a refusal asks the client to wait before trying again (seconds). */
const RETRY_AFTER_SECONDS = 10;

/** The default limit of open streams for a heap of `heapLimitBytes` (this process's own by default). */
export function streamsForHeap(heapLimitBytes = oldGenerationLimit()): number {
  return Math.max(1, Math.floor((heapLimitBytes * STREAMS_HEAP_SHARE) / HEAP_PER_STREAM_BYTES));
}

export interface StreamLimits {
  /** Streams one account may hold open on this instance. */
  perAccount: number;
  /** Streams this instance holds open in all. */
  perInstance: number;
}

/** The limits as configured: a per-instance limit of 0 is derived from the heap. */
export function streamLimits(config: { eventStreamsPerAccount: number; eventStreamsPerInstance: number }) {
  return {
    perAccount: config.eventStreamsPerAccount,
    perInstance: config.eventStreamsPerInstance > 0 ? config.eventStreamsPerInstance : streamsForHeap(),
  };
}

/** What the streams of an instance look like: open now, refused so far (by limit). */
export interface StreamCounts {
  open: number;
  limits: StreamLimits;
  refused: { account: number; instance: number };
}

/**
 * The open streams' count, by account and in all. `admit` takes a slot or throws the refusal; the slot is
 * given back by `release`, once.
 */
export class StreamSlots {
  readonly limits: StreamLimits;
  readonly refused = { account: 0, instance: 0 };
  readonly #byAccount = new Map<string, number>();
  #open = 0;

  constructor(limits: StreamLimits) {
    this.limits = limits;
  }

  get open(): number {
    return this.#open;
  }

  /** Takes a slot for a stream of `account`, or throws 429 (the account's limit) or 503 (the instance's). */
  admit(account: string): void {
    const held = this.#byAccount.get(account) ?? 0;
    if (held >= this.limits.perAccount) {
      this.refused.account++;
      throw new ApiError('too_many_event_streams', `This account already has ${held} event streams open`, {
        details: { limit: String(this.limits.perAccount) },
        headers: { 'retry-after': String(RETRY_AFTER_SECONDS) },
      });
    }
    if (this.#open >= this.limits.perInstance) {
      this.refused.instance++;
      throw new ApiError(
        'event_streams_at_capacity',
        'This instance holds as many event streams as it can; retry later',
        {
          headers: { 'retry-after': String(RETRY_AFTER_SECONDS) },
        },
      );
    }
    this.#byAccount.set(account, held + 1);
    this.#open++;
  }

  /** Gives back a slot `admit` took for `account`. */
  release(account: string): void {
    const held = this.#byAccount.get(account) ?? 0;
    if (held <= 0) return;
    if (held === 1) this.#byAccount.delete(account);
    else this.#byAccount.set(account, held - 1);
    this.#open--;
  }
}
