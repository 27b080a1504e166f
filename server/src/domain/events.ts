/**
 * The account's events (GET /v1/events). Events come from the store, whichever process or instance wrote
 * them: one reader per instance follows the events table (woken on PostgreSQL by the `NOTIFY` of the
 * trigger that announces them, on SQLite by a short poll of the sequence) and hands each event to the
 * streams of its account in memory. A stream that resumes from a `Last-Event-ID` reads what it missed from
 * the store itself first (see `openEventStream`, event-stream.ts).
 *
 * Reading by sequence is safe because a `seq` becomes visible only after every lower one (store/events.ts,
 * the order rule): a reader that has read up to `high` never finds a lower event later. The server-wide
 * `seq` stays inside the instance: a client sees each event's id among its account's events (`id`).
 */

import { eventPositions, eventsBetween, type StoredEvent } from '../store/events.js';
import type { Listening } from '../store/listener.js';
import type { Store } from '../store/store.js';
import { type StreamCounts, type StreamLimits, StreamSlots } from './event-stream-limits.js';

const HEARTBEAT_MS = 15_000;
/** The reconnection delay a stream asks for (milliseconds). */
export const RETRY_MS = 2000;
const POLL_MS = 200;
/** Up to this many accounts listened to, the reader reads only theirs; beyond, every event. */
const FILTER_ACCOUNTS_UP_TO = 100;
export const READ_BATCH = 1000;

export interface AccountEvent {
  /** The event's id among its account's events (1, 2, 3…), in the order the reader hands them out. */
  id: number;
  kind: 'movement';
  /** The event's data: the movement's document. */
  data: string;
}

interface Subscriber {
  /** The sign-in (token family) the stream was opened with: its streams end when it is revoked. */
  family: string | null;
  deliver(event: AccountEvent): void;
  end(): void;
}

export const eventOf = (stored: StoredEvent): AccountEvent => ({
  id: stored.id,
  kind: 'movement',
  data: stored.document,
});

export interface AccountEventsOptions {
  now: () => number;
  /** How many streams are held open, per account and in all. */
  limits: StreamLimits;
  /** SQLite: how often the sequence is read (milliseconds). */
  pollMs?: number;
  heartbeatMs?: number;
  warn?: (message: string) => void;
}

/** The instance's reader of events and its subscribers, by account. */
export class AccountEvents {
  readonly #subscribers = new Map<string, Set<Subscriber>>();
  readonly #bySignIn = new Map<string, Set<Subscriber>>();
  readonly #slots: StreamSlots;
  readonly #store: Store;
  readonly options: Required<Omit<AccountEventsOptions, 'warn'>> & Pick<AccountEventsOptions, 'warn'>;
  /** The last event read; null until the store first answers (the reader then starts from there). */
  #high: number | null = null;
  #reading: Promise<void> | null = null;
  #again = false;
  #listening: Listening | null = null;
  #timers: NodeJS.Timeout[] = [];
  #closed = false;

  constructor(store: Store, options: AccountEventsOptions) {
    this.#store = store;
    this.options = { pollMs: POLL_MS, heartbeatMs: HEARTBEAT_MS, ...options };
    this.#slots = new StreamSlots(options.limits);
  }

  /** The streams open now, the limits, and the refusals so far (for the metrics). */
  streamCounts(): StreamCounts {
    return { open: this.#slots.open, limits: this.#slots.limits, refused: { ...this.#slots.refused } };
  }

  get store(): Store {
    return this.#store;
  }

  /**
   * Starts following the store; settles once the reader knows where the events stand, or, when the store
   * does not answer yet, at once: the server starts anyway and the reader begins when the store answers.
   */
  async start(): Promise<void> {
    this.#high = await eventPositions(this.#store.db).then(
      (p) => p.latest,
      () => null,
    );
    if (this.#store.dialect === 'postgres') {
      this.#listening = this.#store.listen('movement_events', {
        changed: (up, reason) =>
          this.options.warn?.(
            up
              ? 'listening for movement events back: what was missed is read and delivered'
              : `listening for movement events lost (${reason}): open streams receive nothing new until it is back`,
          ),
        message: () => void this.catchUp().catch(() => {}),
        // Announcements made while nobody listened are lost: read what they announced.
        connected: () => this.catchUp(),
      });
      await this.#listening.ready;
    } else {
      this.#every(this.options.pollMs, () => this.catchUp());
    }
    // Old events are deleted by the housekeeper (operator/housekeeper.ts: EVENT_RETENTION_HOURS).
  }

  /** Reads the events after the reader's mark and hands them out; one read at a time, again if asked meanwhile. */
  catchUp(): Promise<void> {
    if (this.#reading) {
      this.#again = true;
      return this.#reading;
    }
    this.#reading = (async () => {
      try {
        do {
          this.#again = false;
          await this.#readOnce();
        } while (this.#again && !this.#closed);
      } finally {
        this.#reading = null;
      }
    })();
    return this.#reading;
  }

  async #readOnce(): Promise<void> {
    const { latest: through } = await eventPositions(this.#store.db);
    if (this.#high === null) {
      this.#high = through;
      return;
    }
    if (through <= this.#high) return;
    if (this.#subscribers.size > 0) {
      const accounts = this.#subscribers.size <= FILTER_ACCOUNTS_UP_TO ? [...this.#subscribers.keys()] : null;
      for (let after = this.#high; ; ) {
        const events = await eventsBetween(this.#store.db, after, through, accounts, READ_BATCH);
        for (const event of events) this.#dispatch(event);
        const last = events.at(-1);
        if (events.length < READ_BATCH || !last) break;
        after = last.seq;
      }
    }
    this.#high = through;
  }

  #dispatch(stored: StoredEvent): void {
    const subscribers = this.#subscribers.get(stored.account);
    if (!subscribers) return;
    const event = eventOf(stored);
    for (const subscriber of subscribers) subscriber.deliver(event);
  }

  /**
   * Hands the account's events to `subscriber` from now on; returns the unsubscription. Throws the refusal
   * (429, 503) when the account or the instance holds as many streams as it may.
   */
  subscribe(account: string, subscriber: Subscriber): () => void {
    if (this.#closed) {
      subscriber.end();
      return () => {};
    }
    this.#slots.admit(account);
    addTo(this.#subscribers, account, subscriber);
    if (subscriber.family !== null) addTo(this.#bySignIn, subscriber.family, subscriber);
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      this.#slots.release(account);
      removeFrom(this.#subscribers, account, subscriber);
      if (subscriber.family !== null) removeFrom(this.#bySignIn, subscriber.family, subscriber);
    };
  }

  /** Ends the streams of a sign-in (token family): it was revoked. */
  endSignIn(family: string): void {
    for (const subscriber of [...(this.#bySignIn.get(family) ?? [])]) subscriber.end();
  }

  /** Ends every stream and stops following the store. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const timer of this.#timers) clearInterval(timer);
    for (const set of [...this.#subscribers.values()]) for (const subscriber of [...set]) subscriber.end();
    this.#subscribers.clear();
    this.#bySignIn.clear();
    await this.#listening?.close();
    await this.#reading?.catch(() => {});
  }

  #every(ms: number, run: () => Promise<unknown>): void {
    const timer = setInterval(() => {
      run().catch((error: unknown) => this.options.warn?.(`events: ${String(error)}`));
    }, ms);
    timer.unref();
    this.#timers.push(timer);
  }
}

function addTo(map: Map<string, Set<Subscriber>>, key: string, subscriber: Subscriber): void {
  let set = map.get(key);
  if (!set) {
    set = new Set();
    map.set(key, set);
  }
  set.add(subscriber);
}

function removeFrom(map: Map<string, Set<Subscriber>>, key: string, subscriber: Subscriber): void {
  const set = map.get(key);
  set?.delete(subscriber);
  if (set?.size === 0) map.delete(key);
}
