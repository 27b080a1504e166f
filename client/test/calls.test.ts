/**
 * `client.calls`, the plain methods generated from the spec: parameters by name to the path, the query or the
 * body; the success's body as the answer, a GatewayError thrown otherwise; the session's token and refresh,
 * and the call policy's retries, as for `client.api`.
 */
import { operationMeta } from '@gateway/generated';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../src/errors.js';
import { createGatewayClient, type GatewayClientOptions } from '../src/gateway.js';
import { memoryStorage } from '../src/storage.js';
import { errorBody, fakeFetch, type Handler, json } from './fake-server.js';

const NOW = Date.UTC(2026, 0, 1);

function gateway(handler: Handler, more: Partial<GatewayClientOptions> = {}) {
  const server = fakeFetch(handler);
  const client = createGatewayClient({
    baseUrl: 'https://gw.test',
    chainId: 'W',
    clientId: 'waves.exchange',
    fetch: server.fetch,
    now: () => NOW,
    retry: { baseDelayMs: 1, maxDelayMs: 1 },
    ...more,
  });
  return { client, requests: server.requests };
}

const platform = { id: 'ETH', name: 'Ethereum', currencies: [] };

describe('client.calls', () => {
  it('has a method for every operation of the spec', () => {
    const { client } = gateway(() => json(200, {}));
    const ids = Object.keys(operationMeta);
    expect(ids.length).toBeGreaterThan(20);
    for (const id of ids) expect(typeof (client.calls as unknown as Record<string, unknown>)[id], id).toBe('function');
  });

  it('puts path parameters in the path and answers with the body', async () => {
    const { client, requests } = gateway(() => json(200, platform));
    const answer = await client.calls.getPlatform({ id: 'ETH/x' });
    expect(answer).toEqual(platform);
    expect(requests.map((r) => `${r.method} ${r.url.pathname}${r.url.search}`)).toEqual(['GET /v1/platforms/ETH%2Fx']);
  });

  it('sends path and query parameters by name, leaving out those not given', async () => {
    const { client, requests } = gateway(() =>
      json(200, { type: 'list', page_info: { has_next_page: false, last_cursor: null }, items: [] }),
    );
    await client.calls.listTrades({
      ledger_address: '3PAddress',
      amount_currency_id: 'WAVES',
      price_currency_id: 'USDN',
      sort: 'desc',
      limit: 5,
    });
    const url = requests[0]?.url;
    expect(url?.pathname).toBe('/v1/addresses/3PAddress/trades/WAVES/USDN');
    expect(Object.fromEntries(url?.searchParams ?? [])).toEqual({ sort: 'desc', limit: '5' });
  });

  it('sends a body operation its parameters as the form the spec documents, not also in the query', async () => {
    const pair = { access_token: 'a', token_type: 'bearer', expires_in: NOW / 1000 + 60, refresh_token: 'r' };
    const { client, requests } = gateway(() => json(200, pair));
    const answer = await client.calls.createToken({
      grant_type: 'refresh_token',
      scope: 'general',
      client_id: 'waves.exchange',
      refresh_token: 'r0',
    });
    expect(answer).toEqual(pair);
    const [request] = requests;
    expect(request?.url.search).toBe('');
    expect(request?.headers.get('content-type')).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(request?.body))).toEqual({
      grant_type: 'refresh_token',
      scope: 'general',
      client_id: 'waves.exchange',
      refresh_token: 'r0',
    });
  });

  it('throws the server’s refusal as a GatewayError', async () => {
    const { client } = gateway(() => json(404, errorBody(11100, 'no such platform'), { 'x-request-id': 'req-1' }));
    const failure = await client.calls.getPlatform({ id: 'NOPE' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(GatewayError);
    expect(failure).toMatchObject({ status: 404, code: 11100, kind: 'api', requestId: 'req-1' });
  });

  it('reads a text answer as text and an event stream as the stream', async () => {
    const { client, requests } = gateway((r) =>
      r.url.pathname === '/metrics'
        ? new Response('up 1\n', { headers: { 'content-type': 'text/plain' } })
        : new Response('id: 1\ndata: {}\n\n', { headers: { 'content-type': 'text/event-stream' } }),
    );
    expect(await client.calls.getMetrics()).toBe('up 1\n');
    const stream = await client.calls.listEvents({ last_event_id: '7' });
    expect(await new Response(stream).text()).toBe('id: 1\ndata: {}\n\n');
    expect(requests[1]?.headers.get('accept')).toBe('text/event-stream');
    expect(requests[1]?.url.searchParams.get('last_event_id')).toBe('7');
  });

  it('sign a protected call in and refresh an expired token once, as client.api does', async () => {
    const storage = memoryStorage({ accessToken: 'old', refreshToken: 'r1', expiresAt: NOW / 1000 + 3600 });
    const { client, requests } = gateway(
      (r) => {
        if (r.url.pathname === '/v1/oauth2/token') {
          return json(200, {
            access_token: 'new',
            token_type: 'bearer',
            expires_in: NOW / 1000 + 3600,
            refresh_token: 'r2',
          });
        }
        return r.headers.get('authorization') === 'Bearer new'
          ? json(200, { id: 'm1' })
          : json(401, errorBody(10000, 'expired'));
      },
      { storage },
    );
    expect(await client.calls.getMovement({ id: 'm1' })).toEqual({ id: 'm1' });
    expect(requests.map((r) => `${r.url.pathname} ${r.headers.get('authorization') ?? ''}`)).toEqual([
      '/v1/movements/m1 Bearer old',
      '/v1/oauth2/token ',
      '/v1/movements/m1 Bearer new',
    ]);
  });

  it('run under the call policy: a read retried after a 503, not when retries are off', async () => {
    let answered = 0;
    const { client, requests } = gateway(() =>
      answered++ === 0 ? json(503, errorBody(10500, 'busy')) : json(200, platform),
    );
    expect(await client.calls.getPlatform({ id: 'ETH' })).toEqual(platform);
    expect(requests).toHaveLength(2);

    answered = 0;
    const once = client.withOptions({ retry: false });
    await expect(once.calls.getPlatform({ id: 'ETH' })).rejects.toMatchObject({ status: 503 });
    expect(requests).toHaveLength(3);
  });

  it('end when the caller’s signal aborts', async () => {
    const { client } = gateway(() => new Promise<Response>(() => {}));
    const controller = new AbortController();
    const call = client.calls.getLiveness({}, { signal: controller.signal });
    controller.abort();
    await expect(call).rejects.toMatchObject({ kind: 'abort' });
  });
});
