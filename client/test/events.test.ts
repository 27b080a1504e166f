import { describe, expect, it } from 'vitest';
import { GatewayError, SessionEndedError } from '../src/errors.js';
import type { ConnectionState, GatewayEvent } from '../src/events.js';
import { createGatewayClient } from '../src/gateway.js';
import { memoryStorage } from '../src/session.js';
import { errorBody, fakeFetch, httpServer, json, type Recorded } from './fake-server.js';

const NOW = 1_800_000_000_000;
const movement = (id: string, status = 'confirmed') => ({
  type: 'gateway_movement',
  id,
  direction: 'deposit',
  status,
  source_platform_id: 'BTC',
  destination_platform_id: 'WAVES',
  currency_id: 'BTC',
  amount: 0.0128,
  fee: 0.00001,
  created_at: '2020-11-03T08:34:02.630Z',
  updated_at: '2020-11-03T09:02:41.117Z',
  recipient_address: '3P9KR33QyXwfTXv8kKtNGZYtgKk3RXSUk36',
  transactions: [],
});
const movementEvent = (id: number, movementId = `m-${id}`) =>
  `event: movement\nid: ${id}\ndata: ${JSON.stringify(movement(movementId))}\n\n`;

/** An event-stream answer whose body the test writes to and ends; `cancelled` tells when the client let go. */
function sse() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let cancel!: () => void;
  const cancelled = new Promise<void>((resolve) => {
    cancel = resolve;
  });
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start: (c) => {
      controller = c;
    },
    cancel: () => cancel(),
  });
  return {
    response: new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } }),
    push: (text: string) => controller.enqueue(encoder.encode(text)),
    end: () => controller.close(),
    cancelled,
  };
}

/** A stream that sends `text` and ends. */
const ended = (text: string) => {
  const stream = sse();
  stream.push(text);
  stream.end();
  return stream.response;
};

/**
 * A gateway whose events endpoint answers from `streams` (one per connection) when the token is the newest
 * one issued (access-1 is held at the start), else 401/10000; refreshes issue access-2, access-3, …
 */
function gateway(
  streams: ((r: Recorded) => Response)[],
  options: { refuseRefresh?: boolean; now?: () => number; expiresAt?: number } = {},
) {
  let issued = 1;
  const now = options.now ?? (() => NOW);
  const events: Recorded[] = [];
  const server = fakeFetch((r) => {
    if (r.url.pathname === '/v1/oauth2/token') {
      if (options.refuseRefresh) return json(400, errorBody(11308));
      issued++;
      return json(200, {
        access_token: `access-${issued}`,
        token_type: 'bearer',
        expires_in: now() / 1000 + 3600,
        refresh_token: `refresh-${issued}`,
      });
    }
    if (r.url.pathname === '/v1/events') {
      events.push(r);
      if (r.headers.get('authorization') !== `Bearer access-${issued}`) return json(401, errorBody(10000));
      const next = streams.shift();
      if (!next) return new Promise<Response>(() => undefined); // hangs: the test ends the loop
      return next(r);
    }
    return json(404, errorBody(10400));
  });
  const client = createGatewayClient({
    baseUrl: 'https://gw.test',
    chainId: 'W',
    clientId: 'waves.exchange',
    fetch: server.fetch,
    now,
    storage: memoryStorage({
      accessToken: 'access-1',
      refreshToken: 'refresh-1',
      expiresAt: options.expiresAt ?? NOW / 1000 + 3600,
    }),
  });
  return { client, requests: server.requests, events };
}

/** The first `count` events, then leave the loop. */
async function take(iterable: AsyncIterable<GatewayEvent>, count: number) {
  const seen: GatewayEvent[] = [];
  if (count === 0) return seen;
  for await (const event of iterable) {
    seen.push(event);
    if (seen.length === count) break;
  }
  return seen;
}

describe('client.events()', () => {
  it('parses movement and reset events across chunk boundaries, skips comments and unknown kinds', async () => {
    const stream = sse();
    const { client, events } = gateway([() => stream.response]);
    const text = `retry: 2000\nid: 5\n\n: heartbeat\n\n${movementEvent(7)}event: something-new\nid: 8\ndata: {}\n\nevent: reset\nid: 9\ndata: {"type":"reset","reason":"expired"}\n\n`;
    // Odd chunk sizes: lines and events split anywhere.
    for (let i = 0; i < text.length; i += 7) stream.push(text.slice(i, i + 7));
    const seen = await take(client.events({ reconnectDelayMs: 1 }), 2);
    expect(seen).toEqual([
      { type: 'movement', id: '7', movement: movement('m-7') },
      { type: 'reset', id: '9', reason: 'expired' },
    ]);
    expect(events[0]?.headers.get('authorization')).toBe('Bearer access-1');
    expect(events[0]?.headers.get('accept')).toBe('text/event-stream');
    expect(events[0]?.url.search).toBe('');
    await stream.cancelled;
  });

  it('sends lastEventId, reconnects with the last id after an end (the bare id line too), never twice', async () => {
    const { client, events } = gateway([
      () => ended('retry: 2000\nid: 5\n\n'),
      () => ended(`retry: 2000\n${movementEvent(6)}`),
      // A server that repeats what was sent: the client does not yield it again.
      () => ended(`${movementEvent(6)}${movementEvent(10)}`),
    ]);
    const seen = await take(client.events({ lastEventId: '4', reconnectDelayMs: 1 }), 2);
    expect(seen.map((e) => e.id)).toEqual(['6', '10']);
    expect(events.map((r) => r.url.searchParams.get('last_event_id'))).toEqual(['4', '5', '6']);
  });

  it('waits the server’s retry delay before reconnecting', async () => {
    const { client, events } = gateway([() => ended('retry: 50\nid: 1\n\n'), () => ended(movementEvent(2))]);
    const started = performance.now();
    await take(client.events(), 1);
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    expect(events).toHaveLength(2);
  });

  it('refreshes on a 401 (code 10000) before reconnecting, once', async () => {
    let refuse = true;
    const server = fakeFetch((r) => {
      if (r.url.pathname === '/v1/oauth2/token') {
        return json(200, {
          access_token: 'access-2',
          token_type: 'bearer',
          expires_in: NOW / 1000 + 3600,
          refresh_token: 'refresh-2',
        });
      }
      if (refuse && r.headers.get('authorization') === 'Bearer access-1') return json(401, errorBody(10000));
      refuse = false;
      return ended(`id: 30\n\n${movementEvent(31)}`);
    });
    const client = createGatewayClient({
      baseUrl: 'https://gw.test',
      chainId: 'W',
      clientId: 'waves.exchange',
      fetch: server.fetch,
      now: () => NOW,
      storage: memoryStorage({ accessToken: 'access-1', refreshToken: 'refresh-1', expiresAt: NOW / 1000 + 3600 }),
    });
    const seen = await take(client.events({ reconnectDelayMs: 1 }), 1);
    expect(seen[0]?.id).toBe('31');
    expect(server.requests.map((r) => `${r.url.pathname} ${r.headers.get('authorization') ?? ''}`)).toEqual([
      '/v1/events Bearer access-1',
      '/v1/oauth2/token ',
      '/v1/events Bearer access-2',
    ]);
  });

  it('when the stream ends at the token’s expiry, refreshes first and resumes with Last-Event-ID', async () => {
    let clock = NOW;
    const { client, requests } = gateway(
      [
        () => {
          // The server ends the stream when the token expires.
          clock = NOW + 61_000;
          return ended(`id: 40\n\n${movementEvent(41)}`);
        },
        () => ended(movementEvent(42)),
      ],
      { now: () => clock, expiresAt: NOW / 1000 + 120 },
    );
    const seen = await take(client.events({ reconnectDelayMs: 1 }), 2);
    expect(seen.map((e) => e.id)).toEqual(['41', '42']);
    expect(
      requests.map((r) =>
        `${r.url.pathname} ${r.headers.get('authorization') ?? ''} ${r.url.searchParams.get('last_event_id') ?? ''}`.trim(),
      ),
    ).toEqual(['/v1/events Bearer access-1', '/v1/oauth2/token', '/v1/events Bearer access-2 41']);
  });

  it('a refused refresh ends the iteration with SessionEndedError', async () => {
    const { client } = gateway([], { refuseRefresh: true, expiresAt: NOW / 1000 - 1 });
    const error = await take(client.events({ reconnectDelayMs: 1 }), 1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionEndedError);
    expect(await client.session()).toBeNull();
  });

  it('when the stream ends because its sign-in was revoked, the refused reconnect ends it with SessionEndedError', async () => {
    const { client, requests } = gateway(
      [
        // The server ends the stream at the revocation; the same access token is then refused.
        () => ended(`id: 50\n\n${movementEvent(51)}`),
        () => json(401, errorBody(10000)),
      ],
      { refuseRefresh: true },
    );
    const seen: GatewayEvent[] = [];
    const error = await (async () => {
      for await (const event of client.events({ reconnectDelayMs: 1 })) seen.push(event);
    })().catch((e: unknown) => e);
    expect(seen.map((e) => e.id)).toEqual(['51']);
    expect(error).toBeInstanceOf(SessionEndedError);
    expect(await client.session()).toBeNull();
    // One reconnect, one refused refresh, and nothing after.
    expect(requests.map((r) => r.url.pathname)).toEqual(['/v1/events', '/v1/events', '/v1/oauth2/token']);
  });

  it('a refusal for too many streams (429, 11101) or a full instance (503, 11201) waits its Retry-After', async () => {
    const { client, events } = gateway([
      () => ended('retry: 20\nid: 1\n\n'),
      () => json(429, errorBody(11101), { 'retry-after': '1' }),
      () => json(503, errorBody(11201), { 'retry-after': '1' }),
      () => ended(movementEvent(2)),
    ]);
    const started = performance.now();
    const seen = await take(client.events(), 1);
    expect(seen.map((e) => e.id)).toEqual(['2']);
    // Twice a second, where the stream's own retry (20 ms, doubled on the second failure) is far shorter.
    expect(performance.now() - started).toBeGreaterThanOrEqual(1900);
    expect(events).toHaveLength(4);
  });

  it('another 4xx throws a GatewayError', async () => {
    const malformed = gateway([() => json(400, errorBody(10201, 'Malformed Last-Event-ID'))]);
    const error = await take(malformed.client.events({ lastEventId: '1', reconnectDelayMs: 1 }), 1).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 400, code: 10201 });
  });

  it('a 503 and a connection dropped mid-event are retried, resuming from the last whole event', async () => {
    // The connection drops in the middle of event 62: the first read has data, the next one fails.
    let reads = 0;
    const body = new ReadableStream<Uint8Array>({
      pull: (c) => {
        reads++;
        if (reads > 1) return c.error(new TypeError('network error'));
        c.enqueue(new TextEncoder().encode(`id: 60\n\n${movementEvent(61)}event: movement\nid: 62\ndata: {"ty`));
      },
    });
    const { client, events } = gateway([
      () => json(503, errorBody(11200)),
      // A 200 that is not an event stream (a proxy's page) is a failure too.
      () => new Response('<html></html>', { status: 200, headers: { 'content-type': 'text/html' } }),
      () => new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } }),
      () => ended(movementEvent(62)),
    ]);
    const seen = await take(client.events({ reconnectDelayMs: 1 }), 2);
    expect(seen.map((e) => e.id)).toEqual(['61', '62']);
    expect(events.map((r) => r.url.searchParams.get('last_event_id'))).toEqual([null, null, null, '61']);
  });

  it('stops on abort: the loop ends without an error and the request is cancelled', async () => {
    const stream = sse();
    stream.push(`id: 70\n\n${movementEvent(71)}`);
    const { client } = gateway([() => stream.response]);
    const controller = new AbortController();
    const seen: GatewayEvent[] = [];
    for await (const event of client.events({ signal: controller.signal })) {
      seen.push(event);
      setTimeout(() => controller.abort(), 5);
    }
    expect(seen.map((e) => e.id)).toEqual(['71']);
    await stream.cancelled;

    // Aborted while waiting to reconnect, or before it starts.
    const waiting = gateway([() => ended('id: 1\n\n')]);
    const later = new AbortController();
    setTimeout(() => later.abort(), 20);
    expect(await take(waiting.client.events({ signal: later.signal, reconnectDelayMs: 60_000 }), 1)).toEqual([]);
    expect(await take(waiting.client.events({ signal: AbortSignal.abort() }), 1)).toEqual([]);
  });

  it('break cancels the request under way', async () => {
    const stream = sse();
    stream.push(movementEvent(81));
    const { client } = gateway([() => stream.response]);
    for await (const event of client.events()) {
      expect(event.id).toBe('81');
      break;
    }
    await stream.cancelled;
  });
});

describe('event ids', () => {
  it('an opening id that goes backwards moves nothing back: no event is yielded twice, the resume id only grows', async () => {
    const { client, events } = gateway([
      () => ended(`id: 10\n\n${movementEvent(11)}${movementEvent(12)}`),
      // The next stream opens with an older id and gives 11 and 12 again.
      () => ended(`id: 5\n\n${movementEvent(11)}${movementEvent(12)}${movementEvent(13)}`),
      () => ended(`id: 12\n\n${movementEvent(14)}`),
    ]);
    const seen = await take(client.events({ reconnectDelayMs: 1 }), 4);
    expect(seen.map((e) => e.id)).toEqual(['11', '12', '13', '14']);
    expect(events.map((r) => r.url.searchParams.get('last_event_id'))).toEqual([null, '12', '13']);
  });

  it('opaque ids are compared by “seen before”: repeats are skipped and an opening id seen before is ignored', async () => {
    const opaque = (id: string) => `event: movement\nid: ${id}\ndata: ${JSON.stringify(movement(`m-${id}`))}\n\n`;
    const { client, events } = gateway([
      () => ended(`id: evt-start\n\n${opaque('evt-q')}${opaque('evt-b')}`),
      () => ended(`id: evt-q\n\n${opaque('evt-q')}${opaque('evt-b')}${opaque('evt-a')}`),
      () => ended(opaque('evt-z')),
    ]);
    const seen = await take(client.events({ reconnectDelayMs: 1 }), 4);
    expect(seen.map((e) => e.id)).toEqual(['evt-q', 'evt-b', 'evt-a', 'evt-z']);
    expect(events.map((r) => r.url.searchParams.get('last_event_id'))).toEqual([null, 'evt-b', 'evt-a']);
  });

  it('a reset goes on from its id, even a lower one (the server’s history restarted)', async () => {
    const { client, events } = gateway([
      () => ended(`id: 99\n\n${movementEvent(100)}${movementEvent(101)}`),
      () => ended(`event: reset\nid: 7\ndata: {"type":"reset","reason":"unknown"}\n\n${movementEvent(8)}`),
      () => ended(movementEvent(9)),
    ]);
    const seen = await take(client.events({ reconnectDelayMs: 1 }), 5);
    expect(seen.map((e) => `${e.type} ${e.id}`)).toEqual([
      'movement 100',
      'movement 101',
      'reset 7',
      'movement 8',
      'movement 9',
    ]);
    expect(events.map((r) => r.url.searchParams.get('last_event_id'))).toEqual([null, '101', '8']);
  });
});

describe('the connection state', () => {
  it('is told: connecting, open, reconnecting (attempt, delay, error), closed', async () => {
    const { client } = gateway([
      () => ended(`retry: 20\nid: 1\n\n${movementEvent(2)}`),
      () => json(503, errorBody(11200)),
      () => ended(movementEvent(3)),
    ]);
    const states: ConnectionState[] = [];
    const seen = await take(client.events({ onStateChange: (state) => states.push(state) }), 2);
    expect(seen.map((e) => e.id)).toEqual(['2', '3']);
    expect(states).toEqual([
      { status: 'connecting', attempt: 0 },
      { status: 'open' },
      // The server ended the stream: reconnect after its retry delay.
      { status: 'reconnecting', attempt: 1, delayMs: 20 },
      { status: 'connecting', attempt: 1 },
      { status: 'reconnecting', attempt: 2, delayMs: 20, error: expect.objectContaining({ status: 503 }) },
      { status: 'connecting', attempt: 2 },
      { status: 'open' },
      { status: 'closed' },
    ]);
  });

  it('says closed with the error that ended the iteration', async () => {
    const { client } = gateway([() => json(400, errorBody(10201))]);
    const states: ConnectionState[] = [];
    const error = await take(client.events({ onStateChange: (state) => states.push(state) }), 1).catch((e) => e);
    expect(states.at(-1)).toEqual({ status: 'closed', error });
    expect(error).toMatchObject({ kind: 'api', status: 400 });
  });

  it('with the server stopped, says reconnecting with growing delays and the network error, not open', async () => {
    let serverStream: ReturnType<typeof sse> | undefined;
    const server = await httpServer((r) => {
      if (r.url.pathname !== '/v1/events') return json(404, errorBody(10400));
      serverStream = sse();
      serverStream.push('retry: 20\nid: 1\n\n');
      return serverStream.response;
    });
    const client = createGatewayClient({
      baseUrl: server.url,
      chainId: 'W',
      clientId: 'waves.exchange',
      storage: memoryStorage({ accessToken: 'a', refreshToken: 'r', expiresAt: 4_000_000_000 }),
    });
    const controller = new AbortController();
    const states: ConnectionState[] = [];
    const done = take(
      client.events({
        signal: controller.signal,
        onStateChange: (state) => {
          states.push(state);
          if (state.status === 'open') void server.close();
          if (state.status === 'reconnecting' && state.attempt === 4) controller.abort();
        },
      }),
      1,
    );
    expect(await done).toEqual([]);
    expect(
      states.map((s) => (s.status === 'reconnecting' ? `${s.status} ${s.delayMs} ${s.error?.kind}` : s.status)),
    ).toEqual([
      'connecting',
      'open',
      // The stream dropped with the server: a failure; then connections refused, the delay doubling.
      'reconnecting 20 network',
      'connecting',
      'reconnecting 40 network',
      'connecting',
      'reconnecting 80 network',
      'connecting',
      'reconnecting 160 network',
      'closed',
    ]);
  });
});
