/**
 * One error model: every failure of a call, whether of `client.api` (a result or a rejection) or of a
 * throwing helper, can be had as a GatewayError with its kind, status, code, message and request id.
 * Against real HTTP servers.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayError, gatewayErrorOf, SessionEndedError, unwrap } from '../src/errors.js';
import { createGatewayClient, type GatewayClientOptions } from '../src/gateway.js';
import { memoryStorage } from '../src/storage.js';
import { errorBody, type Handler, type HttpGateway, httpServer, json } from './fake-server.js';

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
const caught = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );
/** A server that accepts and never answers. */
const silent = () => serve(() => new Promise<Response>(() => undefined));
const drain = async (iterable: AsyncIterable<unknown>) => {
  for await (const _ of iterable) {
  }
};

describe('the error model', () => {
  it('api: a refusal is a value of client.api, and the same GatewayError from gatewayErrorOf, unwrap and the helpers', async () => {
    const server = await serve(() =>
      json(404, errorBody(10402, 'Platform SOL not found'), { 'x-request-id': 'req-42', 'retry-after': '7' }),
    );
    const client = clientOf(server);
    const result = await client.api.GET('/v1/platforms/{id}', { params: { path: { id: 'SOL' } } });
    expect(result.error?.errors[0]?.code).toBe(10402);
    const error = gatewayErrorOf(result);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({
      kind: 'api',
      status: 404,
      code: 10402,
      message: '10402: Platform SOL not found',
      requestId: 'req-42',
      retryAfterMs: 7000,
    });
    expect(() => unwrap(result)).toThrow(error?.message);
    expect(await caught(drain(client.platforms()))).toMatchObject({ kind: 'api', status: 404, requestId: 'req-42' });
    expect(gatewayErrorOf(await clientOf(await serve(() => json(200, { id: 'ETH' }))).api.GET('/v1/platforms'))).toBe(
      undefined,
    );
  });

  it('session: a refused refresh is a SessionEndedError of kind session, with the request id of the refusal', async () => {
    const server = await serve((r) =>
      r.url.pathname === '/v1/oauth2/token'
        ? json(400, errorBody(11308, 'Invalid refresh token'), { 'x-request-id': 'req-7' })
        : json(401, errorBody(10000)),
    );
    const client = clientOf(server, {
      storage: memoryStorage({ accessToken: 'a', refreshToken: 'r', expiresAt: 1 }),
    });
    for (const call of [client.api.GET('/v1/movements'), drain(client.movements())]) {
      const error = await caught(call);
      expect(error).toBeInstanceOf(SessionEndedError);
      expect(error).toMatchObject({ kind: 'session', code: 11308 });
    }
    const first = await caught(
      clientOf(server, { storage: memoryStorage({ accessToken: 'a', refreshToken: 'r', expiresAt: 1 }) }).api.GET(
        '/v1/movements',
      ),
    );
    expect(first).toMatchObject({ kind: 'session', status: 400, requestId: 'req-7' });
  });

  it('network: no server is a GatewayError of kind network, status 0, the fetch error as its cause', async () => {
    const server = await serve(() => json(200, {}));
    await server.close();
    const client = clientOf(server, { retry: false });
    for (const call of [client.api.GET('/v1/platforms'), drain(client.platforms())]) {
      const error = (await caught(call)) as GatewayError;
      expect(error).toBeInstanceOf(GatewayError);
      expect(error).toMatchObject({ kind: 'network', status: 0, code: undefined, requestId: undefined });
      expect(error.cause).toBeInstanceOf(TypeError);
    }
    // A connection dropped before the answer, too.
    const dropping = await serve(() => {
      throw new Error('drop');
    });
    expect(await caught(clientOf(dropping, { retry: false }).api.GET('/v1/platforms'))).toMatchObject({
      kind: 'network',
    });
  });

  it('timeout: a server that never answers ends the call after timeoutMs with kind timeout', async () => {
    const server = await silent();
    const client = clientOf(server, { timeoutMs: 100 });
    for (const call of [client.api.GET('/v1/platforms'), drain(client.platforms())]) {
      expect(await caught(call)).toMatchObject({ name: 'GatewayError', kind: 'timeout', status: 0 });
    }
    // The caller's AbortSignal.timeout() is a timeout too.
    const error = await caught(
      clientOf(server, { timeoutMs: 0 }).api.GET('/v1/platforms', { signal: AbortSignal.timeout(50) }),
    );
    expect(error).toMatchObject({ kind: 'timeout' });
  });

  it('abort: the caller’s signal ends the call with kind abort', async () => {
    const server = await silent();
    const controller = new AbortController();
    const call = clientOf(server).api.GET('/v1/platforms', { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    const error = (await caught(call)) as GatewayError;
    expect(error).toMatchObject({ kind: 'abort', status: 0 });
    expect(await caught(clientOf(server).api.GET('/v1/platforms', { signal: AbortSignal.abort() }))).toMatchObject({
      kind: 'abort',
    });
  });
});
