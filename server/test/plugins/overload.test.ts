/**
 * Overload is refused, not fatal: past its bound (here a heap bound every process is over), every request is
 * refused at once with 503 in the error body (11202, Retry-After), counted by reason, while the operator's
 * endpoints still answer and `/health/serving` says it sheds. The same while answers wait unread in the
 * process past OVERLOAD_UNSENT_MIB; what a connection owes is given back however it ends (written, its
 * client gone before or after the answer was made), and one connection owes at most 16 answers at once.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/app.js';
import { handlers } from '../../src/handlers/index.js';
import { importMovements } from '../../src/operator/commands.js';
import { signIn, type TestApp, testApp } from '../support/app.js';
import { largestMovement } from '../support/largest-records.js';
import { me } from '../support/signers.js';

/** The refusal of `GET /v1/platforms` once the app refuses it (within 5 s, asking every `interval` ms). */
const refusedSoon = (app: Awaited<ReturnType<typeof buildApp>>, interval: number) =>
  vi.waitFor(
    async () => {
      const answer = await app.inject({ url: '/v1/platforms' });
      expect(answer.statusCode).toBe(503);
      return answer;
    },
    { timeout: 5000, interval },
  );

describe('an overloaded instance', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp('sqlite', { demo: true });
  });
  afterAll(() => t.close());

  it('answers as usual below its bounds', async () => {
    const answer = await t.app.inject({ url: '/v1/platforms' });
    expect(answer.statusCode).toBe(200);
    expect((await t.app.inject({ url: '/metrics' })).body).not.toMatch(/^gateway_requests_shed_total\{/m);
  });

  it('refuses every request at once with 503 (11202) and Retry-After, and still answers /health and /metrics', async () => {
    const app = await buildApp(
      { ...t.config, overloadHeapPercent: 1, overloadEventLoopDelayMs: 0 },
      { store: t.store },
    );
    try {
      // The heap held is read at start and after each full collection.
      const refused = await refusedSoon(app, 100);
      expect(refused.json()).toEqual({ errors: [{ code: 11202, message: expect.any(String) }] });
      expect(refused.headers['retry-after']).toBe('5');
      expect(refused.headers['x-request-id']).toBeDefined();
      expect(refused.headers['x-content-type-options']).toBe('nosniff');
      const signIn = await app.inject({ method: 'POST', url: '/v1/oauth2/token', payload: {} });
      expect(signIn.statusCode).toBe(503);
      for (const url of ['/health/live', '/health/ready']) {
        expect((await app.inject({ url })).statusCode, url).toBe(200);
      }
      // What load balancers route by says that the instance sheds.
      const serving = await app.inject({ url: '/health/serving' });
      expect(serving.statusCode).toBe(503);
      expect(serving.json()).toEqual({ errors: [{ code: 11202, message: expect.any(String) }] });
      expect(serving.headers['retry-after']).toBe('5');
      const metrics = await app.inject({ url: '/metrics' });
      expect(metrics.statusCode).toBe(200);
      expect(metrics.body).toMatch(/^gateway_requests_shed_total\{reason="heapUsedBytes"\} [2-9]\d*$/m);
    } finally {
      await app.close();
    }
  });
});

describe('an instance whose event loop lags, with the lag check asked for', () => {
  it('refuses requests with 503 (11202) while it lags, counted as eventLoopDelay, and answers again after', async () => {
    const t = await testApp('sqlite', { demo: true });
    const app = await buildApp(
      { ...t.config, overloadHeapPercent: 0, overloadEventLoopDelayMs: 200 },
      { store: t.store },
    );
    try {
      expect((await app.inject({ url: '/v1/platforms' })).statusCode).toBe(200);
      // The loop lags for 3 s: blocks of 300 ms with one turn of the loop between them. The lag is sampled
      // once a second as the mean of the delays measured every 10 ms since the last sample, so a single long
      // block after many short delays (however long after the app was built it began) can average below the
      // bound; a second of such blocks averages about 300 ms.
      for (const end = Date.now() + 3000; Date.now() < end; ) {
        const until = Date.now() + 300;
        while (Date.now() < until) {
          // busy
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
      const refused = await refusedSoon(app, 50);
      expect(refused.json()).toEqual({ errors: [{ code: 11202, message: expect.any(String) }] });
      expect((await app.inject({ url: '/health/live' })).statusCode).toBe(200);
      const metrics = await app.inject({ url: '/metrics' });
      expect(metrics.body).toMatch(/^gateway_requests_shed_total\{reason="eventLoopDelay"\} [1-9]\d*$/m);
      await vi.waitFor(async () => expect((await app.inject({ url: '/v1/platforms' })).statusCode).toBe(200), {
        timeout: 5000,
        interval: 100,
      });
    } finally {
      await app.close();
      await t.close();
    }
  });
});

/** An HTTP/1.1 GET over a Unix socket; `read: false` sends it and reads nothing until `finish()`. */
function ask(socketPath: string, url: string, authorization: string) {
  const socket = net.connect({ path: socketPath });
  const chunks: Buffer[] = [];
  socket.write(`GET ${url} HTTP/1.1\r\nhost: x\r\nauthorization: ${authorization}\r\nconnection: close\r\n\r\n`);
  socket.pause();
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.once('error', reject);
    socket.once('end', () => {
      const text = Buffer.concat(chunks).toString();
      resolve({ status: Number(text.slice(9, 12)), body: text.slice(text.indexOf('\r\n\r\n') + 4) });
    });
  });
  return {
    answer: () => {
      socket.resume();
      return answer;
    },
  };
}

describe('answers that wait unread', () => {
  let t: TestApp;
  let dir: string;
  let authorization: string;
  beforeAll(async () => {
    t = await testApp('sqlite', { demo: true, config: { overloadUnsentMib: 1 } });
    dir = mkdtempSync(path.join(tmpdir(), 'gateway-unsent-'));
    // A page of the largest movements (about 256 KiB) is more than a Unix socket's buffer takes (208 KiB):
    // the rest of it waits in the process until its client reads.
    const feed = path.join(dir, 'movements.ndjson');
    writeFileSync(
      feed,
      Array.from({ length: 60 }, (_, i) => `${JSON.stringify(largestMovement(i, me.address, 'BTC'))}\n`).join(''),
    );
    await importMovements(t.store, feed, 'W');
    authorization = `Bearer ${(await signIn(t.app, me)).access_token}`;
    await t.app.listen({ path: path.join(dir, 'api.sock') });
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('past OVERLOAD_UNSENT_MIB, refuse requests with 503 (11202) until their clients read them', async () => {
    const socketPath = path.join(dir, 'api.sock');
    const page = '/v1/movements?limit=100';
    // Four pages wait unread: about 1 MiB, the bound; a fifth passes it.
    const unread = Array.from({ length: 5 }, () => ask(socketPath, page, authorization));
    const refused = await vi.waitFor(
      async () => {
        const answer = await ask(socketPath, page, authorization).answer();
        expect(answer.status).toBe(503);
        return answer;
      },
      // Patience for a loaded machine, not a speed requirement: the five pages must all have been made (and
      // left unread) before a request can be refused; in a full CI run the server's 5 s were once not enough.
      { timeout: 20_000, interval: 50 },
    );
    expect(JSON.parse(refused.body)).toEqual({ errors: [{ code: 11202, message: expect.any(String) }] });
    expect((await ask(socketPath, '/health/live', authorization).answer()).status).toBe(200);
    // What load balancers route by says so while it lasts.
    const serving = await ask(socketPath, '/health/serving', authorization).answer();
    expect(serving.status).toBe(503);
    expect(JSON.parse(serving.body)).toEqual({ errors: [{ code: 11202, message: expect.any(String) }] });
    // Once read, each of them is whole, and the instance answers again.
    for (const waiting of unread) {
      const answer = await waiting.answer();
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body).items.length).toBeGreaterThan(0);
    }
    expect((await ask(socketPath, page, authorization).answer()).status).toBe(200);
    expect((await ask(socketPath, '/health/serving', authorization).answer()).status).toBe(200);
    const metrics = await t.app.inject({ url: '/metrics' });
    expect(metrics.body).toMatch(/^gateway_requests_shed_total\{reason="unsentAnswerBytes"\} [1-9]\d*$/m);
    await vi.waitFor(async () => expect(await unsentBytes(t.app)).toBe(0), { timeout: 5000, interval: 20 });
  });

  it('gives back what a connection owed when it ends: one that pipelines 40 pages and never reads is ended at 16', async () => {
    // The server's side of the next connection: a client that never reads does not see it end.
    let ended = false;
    t.app.server.once('connection', (serverSide: net.Socket) => {
      serverSide.once('close', () => {
        ended = true;
      });
    });
    const socket = net.connect({ path: path.join(dir, 'api.sock') });
    socket.pause();
    socket.on('error', () => {});
    const request = `GET /v1/movements?limit=100 HTTP/1.1\r\nhost: x\r\nauthorization: ${authorization}\r\n\r\n`;
    socket.write(request.repeat(40));
    try {
      await vi.waitFor(() => expect(ended).toBe(true), { timeout: 20_000, interval: 20 });
      const answer = await ask(path.join(dir, 'api.sock'), '/v1/movements?limit=100', authorization).answer();
      expect(answer.status).toBe(200);
      const metrics = await t.app.inject({ url: '/metrics' });
      expect(metrics.body).toMatch(/^gateway_requests_shed_total\{reason="answersOwedPerConnection"\} [1-9]\d*$/m);
      await vi.waitFor(async () => expect(await unsentBytes(t.app)).toBe(0), { timeout: 5000, interval: 20 });
    } finally {
      socket.destroy();
    }
  });

  it('answers a client that pipelines a few requests and reads them, in order', async () => {
    const socket = net.connect({ path: path.join(dir, 'api.sock') });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    const ended = new Promise<void>((resolve, reject) => {
      socket.once('end', () => resolve());
      socket.once('error', reject);
    });
    const request = (url: string, last = false) =>
      `GET ${url} HTTP/1.1\r\nhost: x\r\nauthorization: ${authorization}\r\n${last ? 'connection: close\r\n' : ''}\r\n`;
    socket.write(Array.from({ length: 9 }, () => request('/v1/platforms')).join('') + request('/v1/platforms', true));
    await ended;
    const statuses = [
      ...Buffer.concat(chunks)
        .toString('latin1')
        .matchAll(/HTTP\/1\.1 (\d{3}) /g),
    ].map((m) => m[1]);
    expect(statuses).toEqual(Array.from({ length: 10 }, () => '200'));
  });

  it('pays back each answer as it is written: one connection asking 40 pages in turn is answered every time', async () => {
    let connections = 0;
    let closed: Promise<void> = Promise.resolve();
    const counted = (socket: net.Socket) => {
      connections += 1;
      closed = new Promise((resolve) => socket.once('close', () => resolve()));
    };
    t.app.server.on('connection', counted);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const get = (url: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const request = http.get({
          socketPath: path.join(dir, 'api.sock'),
          path: url,
          agent,
          headers: { authorization },
        });
        request.once('error', reject);
        request.once('response', (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.once('end', () =>
            resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
          );
        });
      });
    try {
      // Each page (about 256 KiB) waits in the process in part until it is read; more than 16 of them on one
      // connection are refused if an answer written is not paid back until the connection closes.
      for (let i = 0; i < 40; i += 1) {
        const answer = await get('/v1/movements?limit=100');
        expect(answer.status, `page ${i + 1}`).toBe(200);
        expect(JSON.parse(answer.body).items.length).toBeGreaterThan(0);
      }
      expect(connections).toBe(1);
      // Its bytes too, while the connection is still open; and once it closes, nothing is given back twice.
      await vi.waitFor(async () => expect(await unsentBytes(t.app)).toBe(0), { timeout: 5000, interval: 20 });
      agent.destroy();
      await closed;
      expect(await unsentBytes(t.app)).toBe(0);
    } finally {
      t.app.server.off('connection', counted);
      agent.destroy();
    }
  });

  it('owes nothing for answers made after their client left (a query that ends after the client reset)', async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered = 0;
    let made = 0;
    // listMovements as on PostgreSQL under load: its query ends after its client has gone.
    const app = await buildApp(t.config, {
      store: t.store,
      handlers: {
        ...handlers,
        async listMovements(request, context) {
          entered += 1;
          await gate;
          const answer = await handlers.listMovements(request, context);
          made += 1;
          return answer;
        },
      },
    });
    const socketPath = path.join(dir, 'gated.sock');
    const serverSockets: Promise<void>[] = [];
    app.server.on('connection', (socket: net.Socket) => {
      serverSockets.push(new Promise((resolve) => socket.once('close', () => resolve())));
    });
    await app.listen({ path: socketPath });
    try {
      // Eight pages (about 2 MiB, twice the bound) asked for, and their clients gone before any is made.
      const clients = Array.from({ length: 8 }, () => {
        const socket = net.connect({ path: socketPath });
        socket.on('error', () => {});
        socket.write(`GET /v1/movements?limit=100 HTTP/1.1\r\nhost: x\r\nauthorization: ${authorization}\r\n\r\n`);
        return socket;
      });
      await vi.waitFor(() => expect(entered).toBe(8), { timeout: 10_000, interval: 10 });
      for (const socket of clients) socket.destroy();
      await Promise.all(serverSockets);
      release();
      await vi.waitFor(() => expect(made).toBe(8), { timeout: 10_000, interval: 10 });
      // Their answers went nowhere: nothing is owed, and the next client is answered.
      const answer = await ask(socketPath, '/v1/platforms', authorization).answer();
      expect(answer.status).toBe(200);
      expect(await unsentBytes(app)).toBe(0);
    } finally {
      release();
      await app.close();
    }
  });
});

/** What the app counts as answers made and not yet written (bytes), from its metrics. */
async function unsentBytes(app: Awaited<ReturnType<typeof buildApp>>): Promise<number> {
  const metrics = await app.inject({ url: '/metrics' });
  const value = /^gateway_unsent_answer_bytes (\d+)$/m.exec(metrics.body)?.[1];
  return value === undefined ? Number.NaN : Number(value);
}
