/**
 * Requests Node's HTTP server used to answer itself, before any of the gateway's hooks, with a bare status:
 * an HTTP/1.1 request without `Host` (400, empty body) and an expectation other than `100-continue` (417).
 * Against the real server, each is answered like any refusal: the spec's error body (400: 10200 for the
 * missing Host, 10201 for the expectation, `details.parameter` naming the header), the security headers and a
 * request id. `Expect: 100-continue` still gets `100 Continue` and then its answer; HTTP/1.0 needs no Host.
 *
 *   cd test && CI= npx vitest run attack/hostile-early-answers
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordFigures } from '../src/figures.js';
import { type RunningGateway, startGateway } from '../src/gateway.js';
import { gatewayPid, isAlive } from './support/process.js';

/** The headers every API answer carries (server/src/plugins/security-headers.ts). */
const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
};

interface Answer {
  /** Every status line received, interim ones (100) included. */
  statuses: number[];
  headers: Record<string, string>;
  body: string;
}

/** Writes `request` as given on a connection of its own and reads until the server closes it. */
function exchange(port: number, request: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const lines = [...text.matchAll(/^HTTP\/1\.[01] (\d{3}) /gm)];
      const statuses = lines.map((m) => Number(m[1]));
      // The last answer's head and body (after any 100 Continue).
      const last = text.slice(lines.at(-1)?.index ?? 0);
      const at = last.indexOf('\r\n\r\n');
      const headers = Object.fromEntries(
        last
          .slice(0, at)
          .split('\r\n')
          .slice(1)
          .map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      resolve({ statuses, headers, body: last.slice(at + 4) });
    });
    socket.write(request);
  });
}

let gateway: RunningGateway;
let port: number;
let pid: number | null = null;
const figures = { tried: 0, bare: 0 };
beforeAll(async () => {
  gateway = await startGateway();
  port = Number(new URL(gateway.url).port);
  pid = gatewayPid(gateway.dataDir);
}, 60_000);
afterAll(async () => {
  const alive = pid !== null && isAlive(pid);
  await gateway?.stop();
  recordFigures('hostile-early-answers', {
    check: "Node's early answers (no Host, an unknown Expect)",
    tried: `${figures.tried} requests`,
    accepted: figures.bare,
    alive,
  });
});

/** Counts an answer without the security headers, a request id or the error body, then checks it. */
function expectRefusal(answer: Answer, status: number, code: number, parameter: string, method = 'GET') {
  figures.tried += 1;
  const complete =
    Object.entries(SECURITY_HEADERS).every(([name, value]) => answer.headers[name] === value) &&
    answer.headers['x-request-id'] !== undefined &&
    (method === 'HEAD' || /"code":\d+/.test(answer.body));
  if (!complete) figures.bare += 1;
  expect(answer.statuses).toEqual([status]);
  expect(answer.headers).toMatchObject(SECURITY_HEADERS);
  expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-z]+$/);
  expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
  if (method === 'HEAD') {
    expect(answer.body).toBe('');
    return;
  }
  expect(JSON.parse(answer.body)).toEqual({ errors: [{ code, message: expect.any(String), details: { parameter } }] });
}

describe("requests Node's server used to answer bare", () => {
  it.each([
    ['GET', '/v1/platforms'],
    ['HEAD', '/v1/platforms'],
    ['GET', '/health/live'],
    ['GET', '/nowhere'],
  ])(
    'an HTTP/1.1 %s %s without Host: 400 (10200) in the error body with the security headers',
    async (method, path) => {
      const answer = await exchange(port, `${method} ${path} HTTP/1.1\r\nConnection: close\r\n\r\n`);
      expectRefusal(answer, 400, 10200, 'host', method);
    },
  );

  it.each([
    ['GET', '/v1/platforms', ''],
    ['POST', '/v1/oauth2/token', 'grant_type=password'],
  ])(
    '%s %s with Expect: 200-ok: 400 (10201) in the error body with the security headers',
    async (method, path, body) => {
      const answer = await exchange(
        port,
        `${method} ${path} HTTP/1.1\r\nHost: gateway\r\nExpect: 200-ok\r\nConnection: close\r\n` +
          (body ? `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n` : '') +
          `\r\n${body}`,
      );
      expectRefusal(answer, 400, 10201, 'expect', method);
    },
  );

  it('Expect: 100-continue still gets 100 Continue, then its answer', async () => {
    const body = 'grant_type=nonsense';
    const answer = await exchange(
      port,
      'POST /v1/oauth2/token HTTP/1.1\r\nHost: gateway\r\nExpect: 100-continue\r\nConnection: close\r\n' +
        `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    expect(answer.statuses).toEqual([100, 400]);
    expect(JSON.parse(answer.body)).toMatchObject({ errors: [{ code: 11300 }] });
    expect(answer.headers).toMatchObject(SECURITY_HEADERS);
  });

  it('an HTTP/1.0 request needs no Host', async () => {
    const answer = await exchange(port, 'GET /v1/platforms HTTP/1.0\r\n\r\n');
    expect(answer.statuses).toEqual([200]);
    expect(answer.headers).toMatchObject(SECURITY_HEADERS);
  });
});
