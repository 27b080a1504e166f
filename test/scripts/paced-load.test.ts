/**
 * The benches' fixed-rate load (bench/lib/paced-load.mjs): requests evenly spaced, not a second's share sent
 * at once (autocannon's `overallRate`), and a server's stall charged to every request that waited behind it,
 * not only to those in flight.
 */
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { pacedRun } from '../../bench/lib/paced-load.mjs';

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((done) => server.close(done))));
});

/** A server on a free port; `answer` writes each answer (a small JSON by default). */
async function serve(answer?: (request: http.IncomingMessage, response: http.ServerResponse) => void) {
  const arrivals: number[] = [];
  const server = http.createServer((request, response) => {
    arrivals.push(performance.now());
    if (answer) answer(request, response);
    else response.setHeader('content-type', 'application/json').end('{"ok":true}');
  });
  servers.push(server);
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/x?y=1`, arrivals };
}

describe('bench/lib/paced-load.mjs', () => {
  it('sends a rate evenly over each second, not as a burst at its start', async () => {
    const { url, arrivals } = await serve();
    const result = await pacedRun({ url, connections: 10, rate: 500, seconds: 2, record: true, timeoutMs: 10_000 });
    expect(result).toMatchObject({ requests: 1000, ok: 1000, errors: 0, timeouts: 0, statusCodes: { 200: 1000 } });
    expect(result.latencies).toHaveLength(1000);
    // 200 ms windows: 100 requests each when paced; a second's share sent at its start puts 500 in the first
    // window of each second and none in the next four. Loose bounds: a pause of this process (a busy machine)
    // sends what came due meanwhile together, and empties a window or two.
    const windows = Array.from({ length: 10 }, () => 0);
    for (const at of arrivals) {
      const index = Math.floor((at - (arrivals[0] as number)) / 200);
      if (index < 10) windows[index] = (windows[index] ?? 0) + 1;
    }
    expect(Math.max(...windows)).toBeLessThan(300);
    expect(windows.filter((count) => count >= 20).length).toBeGreaterThanOrEqual(7);
    // The last request is due 1.998 s after the first.
    expect(result.seconds).toBeGreaterThan(1.9);
  });

  it("charges a server's stall to every request that waited behind it", async () => {
    // The 100th request and every one that arrives in the next 300 ms are answered only after those 300 ms.
    let count = 0;
    let blockedUntil = 0;
    const { url } = await serve((_request, response) => {
      count += 1;
      if (count === 100) blockedUntil = performance.now() + 300;
      const wait = blockedUntil - performance.now();
      const answer = () => response.setHeader('content-type', 'application/json').end('{"ok":true}');
      if (wait > 0) setTimeout(answer, wait);
      else answer();
    });
    const result = await pacedRun({
      url,
      connections: 10,
      rate: 200,
      seconds: 2,
      record: true,
      timeoutMs: 10_000,
      slowMs: 100,
    });
    expect(result.requests).toBe(400);
    // 60 requests come due during the stall: 10 take the connections, the other 50 wait for one.
    expect(result.queued).toBeGreaterThanOrEqual(40);
    const slow = result.latencies.filter((ms) => ms >= 100);
    // Counted only from its send, as a generator that sends on a free connection counts, the ten in flight.
    expect(slow.length).toBeGreaterThanOrEqual(40);
    expect(result.latencies.at(-1)).toBeGreaterThanOrEqual(250);
    // Reported as stalls: every slow request in one, those of the server's stall beginning with the 100th
    // request (due 495 ms after the first). One stall on a quiet machine; on a busy one the generator's own
    // pauses (its timer late by over 50 ms) can cut it in two, so the stalls of that second are taken together.
    const stalls = result.stalls ?? [];
    expect(stalls.reduce((sum, stall) => sum + stall.requests, 0)).toBe(slow.length);
    const during = stalls.filter((stall) => stall.atMs > 400 && stall.atMs < 1_400);
    expect(during.reduce((sum, stall) => sum + stall.requests, 0)).toBeGreaterThanOrEqual(40);
    expect(Math.min(...during.map((stall) => stall.atMs))).toBeLessThan(600);
    expect(Math.max(...during.map((stall) => stall.maxMs))).toBeGreaterThanOrEqual(250);
  });

  it('reads an answer whose head comes in pieces, its blank line split between them', async () => {
    // A raw server: each answer's head in three writes, 5 ms apart, the blank line's \r\n\r\n cut after its
    // first byte and again after its second (a 64 KB read can end anywhere; here the cut is forced).
    const pieces = ['HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 2\r', '\n', '\r\nok'];
    const server = net.createServer((socket) => {
      socket.setNoDelay(true);
      socket.on('data', async () => {
        for (const [index, piece] of pieces.entries()) {
          if (index > 0) await new Promise((wait) => setTimeout(wait, 5));
          socket.write(piece);
        }
      });
    });
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
      const result = await pacedRun({ url, connections: 2, rate: 50, seconds: 1, record: true, timeoutMs: 2_000 });
      expect(result).toMatchObject({ requests: 50, ok: 50, errors: 0, timeouts: 0, statusCodes: { 200: 50 } });
      // Every byte of every answer counted once: the head's 3 pieces and the body.
      expect(result.bytes).toBe(50 * pieces.join('').length);
    } finally {
      await new Promise((done) => server.close(done));
    }
  });

  it('fails the run on an answer it cannot frame (no Content-Length)', async () => {
    const { url } = await serve((_request, response) => {
      response.write('{"chunked":');
      response.end('true}');
    });
    await expect(
      pacedRun({ url, connections: 2, rate: 50, seconds: 1, record: false, timeoutMs: 10_000 }),
    ).rejects.toThrow(/without Content-Length/);
  });
});
