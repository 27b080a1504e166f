/**
 * The two rules of HTTP/1.1 that Node's server would answer itself with a bare status: here a request
 * without Host and an expectation other than 100-continue are refused in the error body, with the security
 * headers and a request id; 100-continue and HTTP/1.0 without Host go on as usual.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, testApp } from '../support/app.js';

/** Writes `request` over the app's socket and reads until the server closes: status lines, last head, body. */
function exchange(socketPath: string, request: string) {
  return new Promise<{ statuses: number[]; head: string; body: string }>((resolve, reject) => {
    const socket = net.connect({ path: socketPath });
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => {
      // Answers follow each other's bodies directly (pipelined), not always at the start of a line.
      const lines = [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)];
      const last = text.slice(lines.at(-1)?.index ?? 0);
      const at = last.indexOf('\r\n\r\n');
      resolve({ statuses: lines.map((m) => Number(m[1])), head: last.slice(0, at), body: last.slice(at + 4) });
    });
    socket.write(request);
  });
}

describe('requests Node would answer bare', () => {
  let t: TestApp;
  let dir: string;
  let socketPath: string;
  beforeAll(async () => {
    t = await testApp('sqlite', { demo: true });
    dir = mkdtempSync(path.join(tmpdir(), 'gateway-protocol-'));
    socketPath = path.join(dir, 'api.sock');
    await t.app.listen({ path: socketPath });
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ['no Host', 'GET /v1/platforms HTTP/1.1\r\nConnection: close\r\n\r\n', 10200, 'host'],
    [
      'Expect: 200-ok',
      'GET /v1/platforms HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nConnection: close\r\n\r\n',
      10201,
      'expect',
    ],
  ])(
    '%s: 400 in the error body, with the security headers and a request id',
    async (_name, request, code, parameter) => {
      const answer = await exchange(socketPath, request);
      expect(answer.statuses).toEqual([400]);
      expect(answer.head).toMatch(/^x-content-type-options: nosniff$/im);
      expect(answer.head).toMatch(/^content-security-policy: default-src 'none'/im);
      expect(answer.head).toMatch(/^x-request-id: \S+$/im);
      expect(JSON.parse(answer.body)).toEqual({
        errors: [{ code, message: expect.any(String), details: { parameter } }],
      });
    },
  );

  it.each([
    ['the spec without Host', 'GET /openapi.json HTTP/1.1\r\nConnection: close\r\n\r\n', 10200],
    [
      'the reference with Expect: foo',
      'GET /docs HTTP/1.1\r\nHost: x\r\nExpect: foo\r\nConnection: close\r\n\r\n',
      10201,
    ],
    ['a URL the router cannot read', 'GET /v1/platforms/%FF HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 10201],
    [
      'a path parameter longer than any',
      `GET /v1/platforms/${'a'.repeat(257)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
      10201,
    ],
    ['bytes that are not HTTP', 'GET / HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n', 10201],
  ])('%s: 400 in the error body, with the security headers and a request id', async (_name, request, code) => {
    const answer = await exchange(socketPath, request);
    expect(answer.statuses).toEqual([400]);
    expect(answer.head).toMatch(/^x-content-type-options: nosniff$/im);
    expect(answer.head).toMatch(/^content-security-policy: default-src 'none'/im);
    expect(answer.head).toMatch(/^x-request-id: \S+$/im);
    expect(JSON.parse(answer.body).errors[0].code).toBe(code);
  });

  it.each([
    ['not HTTP', 'GET / HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n', 400],
    ['headers over 16 KiB', `GET / HTTP/1.1\r\nHost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
  ])(
    'a request %s behind pipelined ones: their answers first, in order, then the refusal and the close',
    async (_name, bad, status) => {
      const good = 'GET /v1/platforms HTTP/1.1\r\nHost: x\r\n\r\n';
      const answer = await exchange(socketPath, `${good}${good}${bad}`);
      expect(answer.statuses).toEqual([200, 200, status]);
      expect(answer.head).toMatch(/^connection: close$/im);
    },
  );

  it('Expect: 100-continue gets 100 Continue and its answer; HTTP/1.0 needs no Host', async () => {
    const continued = await exchange(
      socketPath,
      'GET /v1/platforms HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n',
    );
    expect(continued.statuses).toEqual([100, 200]);
    const old = await exchange(socketPath, 'GET /v1/platforms HTTP/1.0\r\n\r\n');
    expect(old.statuses).toEqual([200]);
  });
});
