/**
 * A fake gateway on a real HTTP server (client/test/fake-server.ts) with what the hooks use: the token
 * endpoint and the revocation, a cursor list of movements (pages of `PAGE_SIZE`, cursors that a made-up
 * value fails like the server's: 400, 10206), a platform by id (404 otherwise), and an event stream the
 * test writes into. Every answer carries an `X-Request-Id`.
 */
import { type components, createGatewayClient, type GatewayClientOptions } from '@gateway/client';
import { errorBody, type HttpGateway, httpServer, json, type Recorded } from '../../../client/test/fake-server.js';

type Movement = components['schemas']['Movement'];

export const PAGE_SIZE = 2;

export function movement(index: number, changes: Partial<Movement> = {}): Movement {
  const day = String(28 - index).padStart(2, '0');
  return {
    type: 'gateway_movement',
    id: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
    direction: 'deposit',
    status: 'confirmed',
    source_platform_id: 'ETH',
    destination_platform_id: 'WAVES',
    currency_id: 'USDT',
    amount: 10 + index,
    fee: 0,
    created_at: `2026-10-${day}T12:00:00.000Z`,
    updated_at: `2026-10-${day}T12:00:00.000Z`,
    recipient_address: '3P9KR33QyXwfTXv8kKtNGZYtgKk3RXSUk36',
    transactions: [],
    ...changes,
  } as Movement;
}

export interface FakeGateway extends HttpGateway {
  /** GET /v1/movements requests, in order. */
  movementRequests(): Recorded[];
  /** Writes an SSE frame to every open event stream. */
  send(frame: string): void;
  /** Event streams open now. */
  streams(): number;
  /** Ends every open event stream (as the server does at the token's expiry). */
  endStreams(): void;
  client(options?: Partial<GatewayClientOptions>): ReturnType<typeof createGatewayClient>;
}

/** `repeatCursor`: every movements page answers `last_cursor: 'same'` (a list that makes no progress). */
export async function fakeGateway(
  movements: Movement[] = [0, 1, 2, 3, 4].map((i) => movement(i)),
  options: { repeatCursor?: boolean } = {},
): Promise<FakeGateway> {
  let requests = 0;
  let tokens = 0;
  const streams = new Set<ReadableStreamDefaultController<Uint8Array>>();
  const encoder = new TextEncoder();
  const withId = (response: Response) => {
    requests += 1;
    response.headers.set('x-request-id', `fake-${requests}`);
    return response;
  };
  const server = await httpServer((request) => {
    const { pathname, searchParams } = request.url;
    if (pathname === '/v1/oauth2/token') {
      tokens += 1;
      return withId(
        json(200, {
          access_token: `at-${tokens}`,
          token_type: 'bearer',
          expires_in: Math.floor(Date.now() / 1000) + 3600,
          refresh_token: `rt-${tokens}`,
        }),
      );
    }
    if (pathname === '/v1/oauth2/revoke') return withId(json(200, {}));
    if (pathname === '/v1/platforms/ETH') {
      return withId(json(200, { type: 'platform', id: 'ETH', name: 'Ethereum', address_kind: 'evm' }));
    }
    if (pathname.startsWith('/v1/platforms/')) return withId(json(404, errorBody(10402, 'The platform is unknown.')));
    if (!request.headers.get('authorization')) return withId(json(401, errorBody(10000, 'no token')));
    if (pathname === '/v1/movements') {
      const after = searchParams.get('after');
      if (options.repeatCursor) {
        const page_info = { has_next_page: true, last_cursor: 'same' };
        return withId(json(200, { type: 'list', page_info, items: movements.slice(0, PAGE_SIZE) }));
      }
      const start = after === null ? 0 : Number(/^c(\d+)$/.exec(after)?.[1] ?? Number.NaN);
      if (Number.isNaN(start)) return withId(json(400, errorBody(10206, 'The `after` cursor was not issued here.')));
      const items = movements.slice(start, start + PAGE_SIZE);
      const more = start + PAGE_SIZE < movements.length;
      return withId(
        json(200, {
          type: 'list',
          page_info: { has_next_page: more, last_cursor: more ? `c${start + PAGE_SIZE}` : null },
          items,
        }),
      );
    }
    if (pathname.startsWith('/v1/movements/')) {
      const found = movements.find((m) => pathname === `/v1/movements/${m.id}`);
      return withId(found ? json(200, found) : json(404, errorBody(10404, 'No movement of the account has this id.')));
    }
    if (pathname === '/v1/events') {
      let own: ReadableStreamDefaultController<Uint8Array> | undefined;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          own = controller;
          streams.add(controller);
          // Half a second before a reconnection: long enough for a test to see `reconnecting` on a busy machine.
          controller.enqueue(encoder.encode('retry: 500\n: open\n\n'));
        },
        cancel() {
          if (own) streams.delete(own);
        },
      });
      return withId(new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } }));
    }
    return withId(json(404, errorBody(10400, 'No operation exists at this path.')));
  });
  return {
    ...server,
    movementRequests: () => server.requests.filter((r) => r.url.pathname === '/v1/movements'),
    send(frame) {
      for (const stream of streams) stream.enqueue(encoder.encode(frame));
    },
    streams: () => streams.size,
    endStreams() {
      for (const stream of streams) stream.close();
      streams.clear();
    },
    client: (options = {}) =>
      createGatewayClient({ baseUrl: server.url, chainId: 'W', clientId: 'waves.exchange', retry: false, ...options }),
  };
}
