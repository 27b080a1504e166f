/**
 * `GET /v1/events` as an async iterable: a Server-Sent Events stream read with fetch (EventSource cannot send
 * the bearer token), parsed by `eventsource-parser`, resumed from the last event id (`last_event_id`: the
 * query form of `Last-Event-ID`) after every end (the server ends the stream when the access token expires;
 * and when the sign-in is revoked, after which the reconnect is refused and the session ends) or dropped
 * connection. A refusal for too many streams (429, 11101) or a full instance (503, 11201) is retried after
 * its `Retry-After`. The connection's state is told as it changes (`onStateChange`).
 */
import type { components } from '@gateway/generated';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { GatewayError } from './errors.js';
import { EventPosition } from './event-position.js';

type Schemas = components['schemas'];

/** An event of the account's stream. Kinds the client does not know are skipped. */
export type GatewayEvent =
  /** One of the account's movements was created or changed: the movement as `GET /v1/movements/{id}` gives it. */
  | { type: 'movement'; id: string; movement: Schemas['MovementEvent'] }
  /** The events after the id resumed from are no longer kept: re-read `GET /v1/movements`. */
  | { type: 'reset'; id: string; reason: Schemas['ResetEvent']['reason'] };

/**
 * The stream's connection: `connecting` (attempt 0 the first time, then the reconnect's number), `open`,
 * `reconnecting` (waiting `delayMs` before connecting again; `error` says why, none when the server ended
 * the stream as it does at the token's expiry), `closed` (the iteration ended; `error` when it threw).
 */
export type ConnectionState =
  | { status: 'connecting'; attempt: number }
  | { status: 'open' }
  | { status: 'reconnecting'; attempt: number; delayMs: number; error?: GatewayError }
  | { status: 'closed'; error?: unknown };

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
  /** Told each change of the connection's state. */
  onStateChange?: (state: ConnectionState) => void;
}

/** One connection: the answer to `GET /v1/events`, with the session's token (refreshed once on a 401). */
export type OpenStream = (
  lastEventId: string | undefined,
  signal: AbortSignal,
) => Promise<{ response: Response; body?: ReadableStream<Uint8Array> | null; error?: unknown }>;

const DEFAULT_RETRY_MS = 2000;
/** Longest wait between failed connects (the delay doubles on each failure in a row). */
const MAX_BACKOFF_MS = 30_000;

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

/** Worth another try: the server is busy or down, or there was no answer. */
const transient = (error: GatewayError) =>
  error.kind === 'network' || error.kind === 'timeout' || error.status === 429 || error.status >= 500;
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
  if (message.event === 'reset') return { type: 'reset', id, reason: (data as Schemas['ResetEvent']).reason };
  return undefined;
}

/**
 * The account's events, for as long as the caller iterates and the session lives: reconnects by itself,
 * never yields an event twice, ends cleanly on `signal`, throws `SessionEndedError` when the session cannot
 * be refreshed and `GatewayError` when the server refuses the request (another 4xx).
 */
export async function* eventStream(open: OpenStream, options: EventsOptions = {}): AsyncGenerator<GatewayEvent> {
  const { signal, onStateChange } = options;
  const tell = (state: ConnectionState) => onStateChange?.(state);
  const controller = new AbortController();
  const abort = () => controller.abort(signal?.reason);
  if (signal?.aborted) return tell({ status: 'closed' });
  signal?.addEventListener('abort', abort, { once: true });
  const position = new EventPosition(options.lastEventId);
  let retryMs = DEFAULT_RETRY_MS;
  let failures = 0;
  let attempt = 0;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let closing: unknown;
  // The body is let go of on abort even when the fetch in use does not tie it to the signal.
  controller.signal.addEventListener('abort', () => reader?.cancel().catch(() => undefined), { once: true });
  try {
    for (;;) {
      let failure: GatewayError | undefined;
      let serverWaitMs = 0;
      tell({ status: 'connecting', attempt });
      try {
        const { response, body, error } = await open(position.last, controller.signal);
        if (!response.ok || !body) {
          await response.body?.cancel().catch(() => undefined);
          failure = GatewayError.of(response, error);
          if (!transient(failure)) throw failure;
          serverWaitMs = Math.min(failure.retryAfterMs ?? 0, MAX_BACKOFF_MS);
        } else if (!isEventStream(response)) {
          // Not the server's stream (a proxy's page, say): try again later, as after a failure.
          await body.cancel().catch(() => undefined);
          failure = new GatewayError(response.status, undefined, 'not an event stream', { kind: 'network' });
        } else {
          failures = 0;
          attempt = 0;
          tell({ status: 'open' });
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
              if (!message) {
                position.start(id);
                continue;
              }
              const event = typed(message, id);
              if (event?.type === 'reset') position.reset(id);
              else if (!position.take(id)) continue;
              if (event) yield event;
            }
          }
          reader = undefined;
        }
      } catch (error) {
        if (controller.signal.aborted) return;
        if (!(error instanceof GatewayError) || transient(error)) {
          // A dropped connection, or a refresh the server could not answer now: try again.
          failure =
            error instanceof GatewayError
              ? error
              : new GatewayError(0, undefined, String(error), { kind: 'network', cause: error });
        } else {
          closing = error;
          throw error;
        }
      }
      if (controller.signal.aborted) return;
      if (failure) failures++;
      attempt++;
      const base = options.reconnectDelayMs ?? retryMs;
      const backoff = failure ? Math.min(base * 2 ** (failures - 1), Math.max(base, MAX_BACKOFF_MS)) : base;
      const delayMs = options.reconnectDelayMs === undefined ? Math.max(backoff, serverWaitMs) : backoff;
      tell(
        failure
          ? { status: 'reconnecting', attempt, delayMs, error: failure }
          : { status: 'reconnecting', attempt, delayMs },
      );
      await pause(delayMs, controller.signal);
      if (controller.signal.aborted) return;
    }
  } finally {
    signal?.removeEventListener('abort', abort);
    // `break` out of the loop (or a throw) cancels the request under way.
    if (!controller.signal.aborted) controller.abort();
    await reader?.cancel().catch(() => undefined);
    tell(closing === undefined ? { status: 'closed' } : { status: 'closed', error: closing });
  }
}
