/**
 * Timeouts and retries against real HTTP servers: a deadline for every call; idempotent calls retried on a
 * network error, 429 and 503 (with backoff, or after `Retry-After`); the password grant never retried; the
 * refresh grant retried only where the gateway says it left the token unspent. Waits are printed; only
 * lower bounds the client must respect, and generous upper bounds, are asserted.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { signerFromSeed } from '../src/auth/ledger.js';
import { GatewayError, gatewayErrorOf } from '../src/errors.js';
import { createGatewayClient, type GatewayClientOptions } from '../src/gateway.js';
import { memoryStorage } from '../src/storage.js';
import { errorBody, type Handler, type HttpGateway, httpServer, json, type Recorded } from './fake-server.js';

const signer = signerFromSeed(
  'uncle push human bus echo drastic garden joke sand warfare sentence fossil title color combine',
);
const servers: HttpGateway[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});
const serve = async (handler: Handler) => {
  const server = await httpServer(handler);
  servers.push(server);
  return server;
};
const clientOf = (server: HttpGateway, options: Partial<GatewayClientOptions> = {}) =>
  createGatewayClient({ baseUrl: server.url, chainId: 'W', clientId: 'waves.exchange', ...options });
const apy = (client: ReturnType<typeof clientOf>) =>
  client.api.GET('/v1/apy/staking/{currency_id}', { params: { path: { currency_id: 'WAVES' } } });
/** Answers `failures` in turn, then the staking yield. */
const failing =
  (...failures: (() => Response)[]): Handler =>
  () =>
    failures.shift()?.() ?? json(200, { type: 'apy', apy: 6.22 });
const gaps = (requests: { at: number }[]) => requests.slice(1).map((r, i) => r.at - (requests[i]?.at ?? 0));
/** The server's requests with the time each arrived. */
const timed = (handler: Handler) => {
  const seen: { at: number; request: Recorded }[] = [];
  return {
    seen,
    handler: (request: Recorded) => {
      seen.push({ at: performance.now(), request });
      return handler(request);
    },
  };
};

describe('timeouts', () => {
  it('end a call to a server that accepts and never answers, with kind timeout', async () => {
    const server = await serve(() => new Promise<Response>(() => undefined));
    const started = performance.now();
    const error = await apy(clientOf(server, { timeoutMs: 300 })).catch((e: unknown) => e);
    const took = performance.now() - started;
    console.log(`timeout 300 ms: the call ended after ${took.toFixed(0)} ms`);
    expect(error).toMatchObject({ kind: 'timeout', status: 0 });
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(5000);
  });

  it('can be set per call with withOptions, which shares the session', async () => {
    const server = await serve((r) =>
      r.url.pathname === '/v1/movements' ? new Promise<Response>(() => undefined) : json(200, {}),
    );
    const storage = memoryStorage({ accessToken: 'a', refreshToken: 'r', expiresAt: 4_000_000_000 });
    const client = clientOf(server, { storage, timeoutMs: 60_000 });
    const quick = client.withOptions({ timeoutMs: 1_000 }); // long enough for the request to reach the server on a busy machine
    expect(await quick.api.GET('/v1/movements').catch((e: unknown) => e)).toMatchObject({ kind: 'timeout' });
    expect(server.requests[0]?.headers.get('authorization')).toBe('Bearer a');
    expect(await quick.session()).toEqual(await client.session());
  });
});

describe('retries', () => {
  it('of a read answered 503 with Retry-After wait that long, then succeed', async () => {
    const { seen, handler } = timed(
      failing(() => json(503, errorBody(11200, 'Service unavailable'), { 'retry-after': '1' })),
    );
    const server = await serve(handler);
    const { data } = await apy(clientOf(server));
    expect(data).toEqual({ type: 'apy', apy: 6.22 });
    expect(seen).toHaveLength(2);
    const [gap = 0] = gaps(seen);
    console.log(`503 with Retry-After: 1: retried after ${gap.toFixed(0)} ms`);
    expect(gap).toBeGreaterThanOrEqual(950);
    // An HTTP date works too.
    const dated = await serve(
      failing(() => json(503, errorBody(11200), { 'retry-after': new Date(Date.now() + 1500).toUTCString() })),
    );
    expect((await apy(clientOf(dated))).data).toEqual({ type: 'apy', apy: 6.22 });
    expect(dated.requests).toHaveLength(2);
  });

  it('of a read answered 429 without Retry-After back off exponentially, up to the number of retries', async () => {
    const tooMany = () => json(429, errorBody(11100, 'Too many requests'));
    const { seen, handler } = timed(failing(tooMany, tooMany));
    const server = await serve(handler);
    const { data } = await apy(clientOf(server, { retry: { baseDelayMs: 100 } }));
    expect(data).toEqual({ type: 'apy', apy: 6.22 });
    const waits = gaps(seen);
    console.log(`429 twice, base 100 ms: retried after ${waits.map((w) => w.toFixed(0)).join(', ')} ms`);
    // Jitter takes the upper half of each doubled delay: [50, 100] ms, then [100, 200] ms.
    expect(waits[0]).toBeGreaterThanOrEqual(45);
    expect(waits[1]).toBeGreaterThanOrEqual(95);
    const never = await serve(() => tooMany());
    const { response } = await apy(clientOf(never, { retry: { retries: 3, baseDelayMs: 1 } }));
    expect([response.status, never.requests.length]).toEqual([429, 4]);
  });

  it('of a read after a dropped connection; none with retry: false', async () => {
    let drops = 1;
    const server = await serve(() => {
      if (drops-- > 0) throw new Error('drop');
      return json(200, { type: 'apy', apy: 6.22 });
    });
    expect((await apy(clientOf(server, { retry: { baseDelayMs: 1 } }))).data).toEqual({ type: 'apy', apy: 6.22 });
    expect(server.requests).toHaveLength(2);
    drops = 1;
    expect(await apy(clientOf(server, { retry: false })).catch((e: unknown) => e)).toMatchObject({ kind: 'network' });
    expect(server.requests).toHaveLength(3);
  });

  it('do not wait for a Retry-After longer than maxDelayMs: the refusal says how long instead', async () => {
    const server = await serve(() => json(503, errorBody(11200), { 'retry-after': '120' }));
    const result = await apy(clientOf(server));
    expect(server.requests).toHaveLength(1);
    expect(gatewayErrorOf(result)).toMatchObject({ kind: 'api', status: 503, retryAfterMs: 120_000 });
  });

  it('stop at the call’s deadline', async () => {
    const server = await serve(() => json(503, errorBody(11200), { 'retry-after': '1' }));
    const started = performance.now();
    const { response } = await apy(clientOf(server, { timeoutMs: 1500, retry: { retries: 5 } }));
    console.log(
      `503 with Retry-After: 1 and a 1500 ms deadline: ${server.requests.length} tries in ${(performance.now() - started).toFixed(0)} ms`,
    );
    expect(response.status).toBe(503);
    expect(server.requests).toHaveLength(2);
  });

  it('never of a sign-in: the password grant is tried once, on a 503 and on a dropped connection', async () => {
    const busy = await serve(() => json(503, errorBody(11200), { 'retry-after': '0' }));
    const error = await clientOf(busy)
      .login(signer)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'api', status: 503 });
    expect(busy.requests).toHaveLength(1);
    const dropping = await serve(() => {
      throw new Error('drop');
    });
    expect(
      await clientOf(dropping)
        .login(signer)
        .catch((e: unknown) => e),
    ).toMatchObject({ kind: 'network' });
    expect(dropping.requests).toHaveLength(1);
  });

  it('of the refresh grant only on 429 and 503: a dropped connection may have spent the token', async () => {
    let refreshes = 0;
    const server = await serve((r) => {
      if (r.url.pathname !== '/v1/oauth2/token') return json(200, { type: 'list', page_info: {}, items: [] });
      refreshes++;
      throw new Error('drop');
    });
    const storage = memoryStorage({ accessToken: 'a', refreshToken: 'r', expiresAt: 1 });
    const client = clientOf(server, { storage, retry: { baseDelayMs: 1 } });
    const error = await client.api.GET('/v1/movements').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ kind: 'network' });
    // Neither the refresh nor the read that needed it was tried again; the session is kept.
    expect(refreshes).toBe(1);
    expect(server.requests).toHaveLength(1);
    expect((await client.session())?.refreshToken).toBe('r');
  });

  it('of the revocation on a dropped connection: logout goes through', async () => {
    let drops = 1;
    const server = await serve(() => {
      if (drops-- > 0) throw new Error('drop');
      return json(200, {});
    });
    const storage = memoryStorage({ accessToken: 'a', refreshToken: 'r', expiresAt: 4_000_000_000 });
    await clientOf(server, { storage, retry: { baseDelayMs: 1 } }).logout();
    expect(server.requests.map((r) => r.url.pathname)).toEqual(['/v1/oauth2/revoke', '/v1/oauth2/revoke']);
  });
});
