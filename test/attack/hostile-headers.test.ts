/**
 * Hostile clients against the answers' headers and the logs, on the real server (`serve --demo`):
 * - every answer, the API reference (/docs) and its 404s included, carries the security headers;
 * - a forged `Host` never reaches a document (the reference's server list is relative);
 * - the demo's CORS admits local dev servers on real ports only (not `http://localhost:99999`);
 * - clients that give up in the middle of their body write one info line each, never an error with a stack.
 * Each attack counts what got through (must be 0) for `npm run prove`.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordFigures } from '../src/figures.js';
import { type RunningGateway, startGateway } from '../src/gateway.js';
import { gatewayPid, isAlive } from './support/process.js';

const PATHS = [
  '/docs',
  '/docs/',
  '/docs/json',
  '/docs/yaml',
  '/docs/static/swagger-ui.css',
  '/docs/static/swagger-initializer.js',
  '/docs/nothing-here',
  '/docs/static/../../../../etc/passwd',
  '/openapi.json',
  '/v1/platforms',
  '/v1/platforms/NOPE',
  '/v1/movements',
  '/v1/nowhere',
  '/health/live',
  '/metrics',
];
/** Forged Host headers, and the name each must never bring into a document. */
const FORGED_HOSTS = [
  ['evil.example', 'evil.example'],
  ['evil.example:443', 'evil.example'],
  ['attacker.test:8080', 'attacker.test'],
  ['127.0.0.1:1@evil.example', 'evil.example'],
] as const;
const BAD_ORIGINS = [
  'http://localhost:99999',
  'http://localhost:65536',
  'http://localhost:0',
  'http://127.0.0.1:080',
  'http://localhost.evil.example',
  'https://evil.example',
  'http://[::1].evil.example',
  'null',
];

let gateway: RunningGateway;
let pid: number | null = null;
beforeAll(async () => {
  gateway = await startGateway({ LOG_LEVEL: 'info' });
  pid = gatewayPid(gateway.dataDir);
}, 60_000);

const figures = { tried: 0, accepted: 0 };
afterAll(async () => {
  const alive = pid !== null && isAlive(pid);
  await gateway?.stop();
  recordFigures('hostile-headers', {
    check: "answers' headers, docs and Host, CORS ports, aborted-request log flood",
    tried: `${figures.tried} requests`,
    accepted: figures.accepted,
    alive,
  });
});

/** One failed check, counted for the table, and reported by the test. */
function count(ok: boolean): boolean {
  figures.tried += 1;
  if (!ok) figures.accepted += 1;
  return ok;
}

describe('hostile clients: headers, Host, origins and logs', () => {
  it('every answer, /docs and its 404s included, carries the security headers', async () => {
    const missing: string[] = [];
    for (const path of PATHS) {
      for (const method of ['GET', 'HEAD']) {
        const answer = await fetch(`${gateway.url}${path}`, { method, redirect: 'manual' });
        const h = answer.headers;
        const ok =
          h.get('x-content-type-options') === 'nosniff' &&
          h.get('x-frame-options') === 'DENY' &&
          h.get('referrer-policy') === 'no-referrer' &&
          /^default-src 'none';/.test(h.get('content-security-policy') ?? '') &&
          /frame-ancestors 'none'/.test(h.get('content-security-policy') ?? '');
        if (!count(ok)) missing.push(`${method} ${path} ${answer.status}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('a forged Host never reaches the reference or the spec', async () => {
    const leaked: string[] = [];
    for (const [host, name] of FORGED_HOSTS) {
      for (const path of [
        '/docs/json',
        '/docs/yaml',
        '/docs/',
        '/docs/static/swagger-initializer.js',
        '/openapi.json',
      ]) {
        const text = await rawGet(gateway.url, path, host);
        if (!count(!text.includes(name))) leaked.push(`${host} ${path}`);
      }
    }
    expect(leaked).toEqual([]);
  });

  it("the demo's CORS admits no origin but local dev servers on real ports", async () => {
    const admitted: string[] = [];
    for (const origin of BAD_ORIGINS) {
      const answer = await fetch(`${gateway.url}/v1/platforms`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'GET' },
      });
      if (!count(answer.headers.get('access-control-allow-origin') === null)) admitted.push(origin);
    }
    expect(admitted).toEqual([]);
    const local = await fetch(`${gateway.url}/v1/platforms`, { headers: { origin: 'http://localhost:5173' } });
    expect(local.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
  });

  it('clients leaving in the middle of their body write one info line each, never an error or a stack', async () => {
    // A gateway of its own, whose log (the last 20,000 characters are kept) holds these lines only.
    const quiet = await startGateway({ LOG_LEVEL: 'info' });
    const ABORTS = 60;
    try {
      for (let batch = 0; batch < ABORTS / 20; batch += 1) {
        await Promise.all(Array.from({ length: 20 }, () => abortMidBody(quiet.url)));
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await fetch(`${quiet.url}/health/serving`)).status).toBe(200);
    } finally {
      await quiet.stop();
    }
    const lines = quiet
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string; err?: unknown });
    const aborted = lines.filter((line) => line.msg === 'request aborted by the client');
    // Embedded mode's notice about its generated secrets is the one warning a demo start gives.
    const loud = lines.filter(
      (line) => (line.level > 30 || line.err !== undefined) && !line.msg.startsWith('embedded mode:'),
    );
    figures.tried += ABORTS;
    figures.accepted += loud.length + Math.max(0, aborted.length - ABORTS);
    expect(loud).toEqual([]);
    expect(aborted).toHaveLength(ABORTS);
  }, 60_000);
});

/** A GET with the given Host header, as raw HTTP (fetch does not let a caller set Host). */
function rawGet(base: string, path: string, host: string): Promise<string> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () =>
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`),
    );
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
  });
}

/** A token request that announces 1000 bytes of body, sends a few, and goes away. */
function abortMidBody(base: string): Promise<void> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        'POST /v1/oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n' +
          'Content-Length: 1000\r\n\r\ngrant_type=pass',
      );
      // Long enough for the server to have read the headers and started on the body.
      setTimeout(() => socket.destroy(), 200);
    });
    socket.on('close', () => resolve());
    socket.on('error', () => resolve());
  });
}
