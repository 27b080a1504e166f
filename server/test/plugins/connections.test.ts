/**
 * Connections at the socket, over loopback (all of 127/8 answers on Linux, so clients bind 127.0.0.x to be
 * told apart): past a cap a connection is reset at once, and other addresses are still served; a new
 * connection that sends nothing is let go after the idle timeout, while one whose request is being answered
 * is not; headers sent too slowly get 408 in the error body (11500); every one is counted in /metrics.
 */
import http from 'node:http';
import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { Config } from '../../src/config.js';
import { handlers } from '../../src/handlers/index.js';
import { type TestApp, testApp } from '../support/app.js';

const IDLE_MS = 400;
const HEADERS_MS = 1000;

/** A connection from `localAddress` that sends nothing: resolves once connected, tells when it closes. */
function idleConnection(port: number, localAddress: string) {
  const socket = net.connect({ host: '127.0.0.1', port, localAddress });
  socket.on('error', () => {});
  const closed = new Promise<number>((resolve) => {
    const started = Date.now();
    socket.once('close', () => resolve(Date.now() - started));
  });
  const connected = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return { socket, connected, closed };
}

/** GET `path` over a connection of its own from `localAddress`: the status and the body. */
function get(port: number, path: string, localAddress: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path, localAddress, agent: false }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
  });
}

/** Whether the socket is closed within `ms` (a generous bound, never a measurement). */
const closesWithin = (closed: Promise<number>, ms: number) =>
  Promise.race([closed.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);

describe('connections at the socket', () => {
  let t: TestApp;
  const apps: FastifyInstance[] = [];
  const sockets: net.Socket[] = [];
  beforeAll(async () => {
    t = await testApp('sqlite', { demo: true });
  });
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.destroy();
  });
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await t.close();
  });

  const serve = async (config: Partial<Config>, options: { slowPlatformsMs?: number } = {}) => {
    const slow = options.slowPlatformsMs;
    const app = await buildApp(
      { ...t.config, idleConnectionTimeoutMs: IDLE_MS, headersTimeoutMs: HEADERS_MS, ...config },
      {
        store: t.store,
        handlers: slow
          ? {
              ...handlers,
              listPlatforms: async (request, context) => {
                await new Promise((resolve) => setTimeout(resolve, slow));
                return handlers.listPlatforms(request, context);
              },
            }
          : handlers,
      },
    );
    apps.push(app);
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    if (!address || typeof address === 'string') throw new Error('not listening on TCP');
    const metric = async (series: string) => {
      const text = (await app.inject({ url: '/metrics' })).body;
      const line = text.split('\n').find((l) => l.startsWith(`${series} `));
      return line === undefined ? undefined : Number(line.slice(series.length + 1));
    };
    return { app, port: address.port, metric };
  };

  const open = (port: number, localAddress: string) => {
    const connection = idleConnection(port, localAddress);
    sockets.push(connection.socket);
    return connection;
  };

  it('resets the connections of an address past its cap at once, and serves another address meanwhile', async () => {
    const { port, metric } = await serve({ connectionsPerAddress: 5, idleConnectionTimeoutMs: 10_000 });
    const all = Array.from({ length: 8 }, () => open(port, '127.0.0.2'));
    await Promise.all(all.map((c) => c.connected));
    const closedAtOnce = await Promise.all(all.map((c) => closesWithin(c.closed, 500)));
    expect(closedAtOnce.filter(Boolean)).toHaveLength(3);
    const other = await get(port, '/v1/platforms', '127.0.0.3');
    expect(other.status).toBe(200);
    expect(await metric('gateway_connections_refused_total{reason="address"}')).toBe(3);
    expect(await metric('gateway_connections_open')).toBe(5);
    expect(await metric('gateway_connections_limit{scope="address"}')).toBe(5);
    // One of its connections closed: the address is admitted again.
    all.find((_, i) => !closedAtOnce[i])?.socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await get(port, '/v1/platforms', '127.0.0.2')).status).toBe(200);
  });

  it('resets every connection past the instance’s cap, whatever its address', async () => {
    const { port, metric } = await serve({ connectionsPerInstance: 3, idleConnectionTimeoutMs: 10_000 });
    const held = ['127.0.0.4', '127.0.0.5', '127.0.0.6'].map((a) => open(port, a));
    await Promise.all(held.map((c) => c.connected));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const next = open(port, '127.0.0.7');
    expect(await closesWithin(next.closed, 500)).toBe(true);
    expect(await Promise.all(held.map((c) => closesWithin(c.closed, 100)))).toEqual([false, false, false]);
    expect(await metric('gateway_connections_refused_total{reason="instance"}')).toBe(1);
    expect(await metric('gateway_connections_limit{scope="instance"}')).toBe(3);
  });

  it('has no cap per address behind trusted proxies (their connections all come from the proxy)', async () => {
    const { port, metric } = await serve({
      connectionsPerAddress: 2,
      trustProxyHops: 1,
      idleConnectionTimeoutMs: 10_000,
    });
    const all = Array.from({ length: 5 }, () => open(port, '127.0.0.8'));
    await Promise.all(all.map((c) => c.connected));
    expect(await Promise.all(all.map((c) => closesWithin(c.closed, 300)))).toEqual([false, false, false, false, false]);
    expect(await metric('gateway_connections_limit{scope="address"}')).toBe(0);
    expect(await metric('gateway_connections_refused_total{reason="address"}')).toBe(0);
  });

  it('lets a new connection that sends nothing go after the idle timeout, and counts it', async () => {
    const { port, metric } = await serve({});
    const silent = open(port, '127.0.0.9');
    await silent.connected;
    expect(await closesWithin(silent.closed, IDLE_MS + 2000)).toBe(true);
    expect(await silent.closed).toBeGreaterThanOrEqual(IDLE_MS - 50);
    expect(await metric('gateway_connections_timed_out_total{reason="idle"}')).toBe(1);
  });

  it('does not cut a request being answered for longer than the idle timeout', async () => {
    const { port } = await serve({}, { slowPlatformsMs: IDLE_MS * 3 });
    const answer = await get(port, '/v1/platforms', '127.0.0.10');
    expect(answer.status).toBe(200);
  });

  it('answers headers sent too slowly with 408 in the error body (11500) and closes the connection', async () => {
    const { port, metric } = await serve({});
    const slow = open(port, '127.0.0.11');
    let received = '';
    slow.socket.setEncoding('utf8');
    slow.socket.on('data', (chunk: string) => {
      received += chunk;
    });
    await slow.connected;
    // A byte every 100 ms: never idle, never done.
    const request = `GET /v1/platforms HTTP/1.1\r\nHost: gateway\r\nX-Slow: ${'a'.repeat(200)}`;
    let sent = 0;
    const drip = setInterval(() => {
      if (slow.socket.writable && sent < request.length) slow.socket.write(request[sent++] ?? '');
    }, 100);
    try {
      expect(await closesWithin(slow.closed, HEADERS_MS + 3000)).toBe(true);
    } finally {
      clearInterval(drip);
    }
    expect(received).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    const body = JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4)) as { errors: { code: number }[] };
    expect(body.errors[0]?.code).toBe(11500);
    expect(await metric('gateway_connections_timed_out_total{reason="request"}')).toBe(1);
  });
});
