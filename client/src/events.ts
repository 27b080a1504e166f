/**
 * `GET /v1/events` as an async iterable: a Server-Sent Events stream read with fetch (EventSource cannot send
 * the bearer token), parsed by `eventsource-parser`, resumed from the last event id (`last_event_id`: the query form of `Last-Event-ID`) after every end (the server
 * ends the stream when the access token expires, with a fresh token then; and when the sign-in is revoked,
 * after which the reconnect is refused and the session ends) or dropped connection. A refusal for too many
 * streams (429, 11101) or a full instance (503, 11201) is retried after its `Retry-After`.
 */
import type { components } from '@gateway/generated';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { GatewayError, SessionEndedError } from './errors.js';

type Schemas = components['schemas'];

/** An event of the account's stream. Kinds the client does not know are skipped. */
export type GatewayEvent =
  /** One of the account's movements was created or changed: the movement as `GET /v1/movements/{id}` gives it. */
  | { type: 'movement'; id: string; movement: Schemas['MovementEvent'] }
  /** The events after the id resumed from are no longer kept: re-read `GET /v1/movements`. */
  | { type: 'reset'; id: string; reason: Schemas['ResetEvent']['reason'] };

export interface EventsOptions {
  /** Ends the iteration (cleanly: the loop just stops) and the request under way. */
  signal?: AbortSignal;
  /** Resume after this event id (one the stream gave earlier); without it, the stream starts from now. */
  lastEventId?: string;
  /**
   * Wait this long before reconnecting, instead of the server's `retry` (2000 ms when the server sends none)
   * and of a refusal's `Retry-After`.
   */
  reconnectDelayMs?: number;
}

/** One connection: the answer to `GET /v1/events`, with the session's token (refreshed once on a 401). */
export type OpenStream = (
  lastEventId: string | undefined,
  signal: AbortSignal,
) => Promise<{ response: Response; body?: ReadableStream<Uint8Array> | null; error?: unknown }>;

const DEFAULT_RETRY_MS = 2000;
/** Longest wait between failed connects (the delay doubles on each failure in a row). */
const MAX_BACKOFF_MS = 30_000;

/** Decimal ids compared as numbers, without losing precision past 2^53. */
const after = (id: string, last: string | undefined) =>
  last === undefined || id.length > last.length || (id.length === last.length && id > last);

/** Waits `ms`, or less when `signal` aborts. */
const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });

const transient = (status: number) => status === 429 || status >= 500;

/** A refusal's `Retry-After` in milliseconds (seconds form only), at most MAX_BACKOFF_MS; 0 when absent. */
const retryAfterMs = (response: Response) => {
  const seconds = Number(response.headers.get('retry-after') ?? '');
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds * 1000, MAX_BACKOFF_MS) : 0;
};
const isEventStream = (response: Response) => /^text\/event-stream\b/i.test(response.headers.get('content-type') ?? '');

function typed(message: EventSourceMessage, id: string): GatewayEvent | undefined {
  let data: unknown;
  try {
    data = JSON.parse(message.data);
  } catch {
    return undefined;
  }
  if (typeof data !== 'object' || data === null) return undefined;
  if (message.event === 'movement') return { type: 'movement', id, movement: data as Schemas['MovementEvent'] };
  if (message.event === 'reset') {
    return { type: 'reset', id, reason: (data as Schemas['ResetEvent']).reason };
  }
  return undefined;
}

/**
 * The account's events, for as long as the caller iterates and the session lives: reconnects by itself,
 * never yields an event twice, ends cleanly on `signal`, throws `SessionEndedError` when the session cannot
 * be refreshed and `GatewayError` when the server refuses the request (another 4xx).
 */
export async function* eventStream(open: OpenStream, options: EventsOptions = {}): AsyncGenerator<GatewayEvent> {
  const { signal } = options;
  const controller = new AbortController();
  const abort = () => controller.abort(signal?.reason);
  if (signal?.aborted) return;
  signal?.addEventListener('abort', abort, { once: true });
  let lastId = options.lastEventId;
  let retryMs = DEFAULT_RETRY_MS;
  let failures = 0;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  // The body is let go of on abort even when the fetch in use does not tie it to the signal.
  controller.signal.addEventListener('abort', () => reader?.cancel().catch(() => undefined), { once: true });
  try {
    for (;;) {
      let failed = false;
      let serverWaitMs = 0;
      try {
        const { response, body, error } = await open(lastId, controller.signal);
        if (!response.ok || !body) {
          await response.body?.cancel().catch(() => undefined);
          if (!transient(response.status)) throw new GatewayError(response.status, error);
          failed = true;
          serverWaitMs = retryAfterMs(response);
        } else if (!isEventStream(response)) {
          // Not the server's stream (a proxy's page, say): try again later, as after a failure.
          await body.cancel().catch(() => undefined);
          failed = true;
        } else {
          failures = 0;
          reader = body.getReader();
          const decoder = new TextDecoder();
          const queue: { id: string; message?: EventSourceMessage }[] = [];
          const parser = createParser({
            onId: (id) => queue.push({ id }),
            onEvent: (message) => {
              const tail = queue[queue.length - 1];
              if (tail && tail.message === undefined && tail.id === message.id) tail.message = message;
            },
            onRetry: (ms) => {
              retryMs = ms;
            },
          });
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            parser.feed(decoder.decode(value, { stream: true }));
            while (queue.length > 0) {
              const { id, message } = queue.shift() as { id: string; message?: EventSourceMessage };
              const event = message && typed(message, id);
              // A movement at or before the last id was seen already (the server resumes after it).
              if (event?.type === 'movement' && !after(id, lastId)) continue;
              lastId = id;
              if (event) yield event;
            }
          }
          reader = undefined;
        }
      } catch (error) {
        if (controller.signal.aborted) return;
        if (error instanceof SessionEndedError) throw error;
        if (error instanceof GatewayError && !transient(error.status)) throw error;
        // A dropped connection, or a refresh the server could not answer now: try again.
        failed = true;
      }
      if (controller.signal.aborted) return;
      if (failed) failures++;
      const base = options.reconnectDelayMs ?? retryMs;
      const backoff = failed ? Math.min(base * 2 ** (failures - 1), Math.max(base, MAX_BACKOFF_MS)) : base;
      await pause(
        options.reconnectDelayMs === undefined ? Math.max(backoff, serverWaitMs) : backoff,
        controller.signal,
      );
      if (controller.signal.aborted) return;
    }
  } finally {
    signal?.removeEventListener('abort', abort);
    // `break` out of the loop (or a throw) cancels the request under way.
    if (!controller.signal.aborted) controller.abort();
    await reader?.cancel().catch(() => undefined);
  }
}
