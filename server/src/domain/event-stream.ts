/**
 * One account's event stream (GET /v1/events) over the instance's reader (events.ts): resumed from a
 * `Last-Event-ID`, then live, ended at the token's expiry, at the sign-in's revocation or at shutdown. Ids
 * are the account's own (1, 2, 3…, store/events.ts): the position, the resumed and live events and a
 * `reset` carry nothing counted over other accounts.
 */
import { ApiError } from '../errors.js';
import { EventStream } from '../lib/event-stream.js';
import { accountEventsAfter, accountPosition } from '../store/events.js';
import { type AccountEvent, type AccountEvents, eventOf, READ_BATCH, RETRY_MS } from './events.js';
import type { Caller, Revoked } from './token-settings.js';

/**
 * A stream of the caller's events: from `lastEventId` when given (the events it missed, then live ones; a
 * `reset` event when they are no longer kept, or the id was never issued to this account, or was one of the
 * server-wide ids of before migration 0009 other than the last), else from now. It ends when the
 * caller's access token expires (a timer, and a check before every event and heartbeat), when its sign-in
 * is revoked (`AccountEvents.endSignIn`, as soon as this instance learns of it, and the same checks), or when
 * the instance closes. Refused (429, 503) when the account or the instance holds as many streams as it may.
 */
export async function openEventStream(
  events: AccountEvents,
  caller: Caller,
  lastEventId: string | undefined,
  revoked: Revoked,
): Promise<EventStream> {
  const { db } = events.store;
  const { now, heartbeatMs } = events.options;
  const over = () => caller.expiresAt * 1000 <= now() || (caller.family !== null && revoked.has(caller.family));
  const stream = new EventStream();
  let buffered: AccountEvent[] | null = [];
  let sent = 0;
  const send = (event: AccountEvent) => {
    if (event.id <= sent) return;
    // Nothing is sent past the token's expiry or the sign-in's revocation, whatever ends the stream.
    if (over()) {
      stream.end();
      return;
    }
    stream.event(event.kind, event.id, event.data);
    sent = event.id;
  };
  // Live events are heard from before the store is read, so that none falls between the two. The stream's
  // slot is taken here: a refused stream (429, 503) costs no read.
  const unsubscribe = events.subscribe(caller.account, {
    family: caller.family,
    deliver: (event) => (buffered ? buffered.push(event) : send(event)),
    end: () => stream.end(),
  });
  stream.onClose(unsubscribe);
  // Revoked between the token's check and the subscription: the revocation's notice has passed already.
  if (over()) {
    stream.destroy();
    throw new ApiError('invalid_access_token');
  }
  try {
    stream.retry(RETRY_MS);
    const { last, legacyThrough } = await accountPosition(db, caller.account);
    /** The events after `id` are not all kept: the client re-reads, and the stream goes on from `id`. */
    const reset = (id: number, reason: 'expired' | 'unknown') => {
      stream.event('reset', id, JSON.stringify({ type: 'reset', reason }));
      sent = id;
    };
    if (lastEventId === undefined) {
      sent = last;
      stream.position(last);
    } else {
      const from = Number(lastEventId);
      if (from > last) reset(last, 'unknown');
      else if (from < legacyThrough) reset(last, 'expired');
      else {
        sent = from;
        // Ids have no gaps within an account, and pruning takes its oldest first: an id skipped was pruned.
        for (;;) {
          const missed = await accountEventsAfter(db, caller.account, sent, READ_BATCH);
          const first = missed[0]?.id;
          if (first === undefined ? sent < last : first > sent + 1) reset((first ?? last + 1) - 1, 'expired');
          for (const event of missed) send(eventOf(event));
          if (missed.length < READ_BATCH || stream.over) break;
        }
      }
    }
    for (const event of buffered) send(event);
    buffered = null;
  } catch (error) {
    stream.destroy();
    throw error;
  }

  const heartbeat = setInterval(() => {
    if (over()) stream.end();
    else stream.comment('heartbeat');
  }, heartbeatMs);
  const expiry = setTimeout(() => stream.end(), Math.min(Math.max(caller.expiresAt * 1000 - now(), 0), 2 ** 31 - 1));
  stream.onClose(() => {
    clearInterval(heartbeat);
    clearTimeout(expiry);
  });
  return stream;
}
