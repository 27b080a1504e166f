/** Secrets, passwords and tokens never reach the logs, even at trace level and when sent in a query string. */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { logDestination } from '../../src/fastify-options.js';
import { postToken, signIn, type TestApp, testApp } from '../support/app.js';
import { DEMO_SEED, ledgerUser } from '../support/signers.js';

describe('logs', () => {
  let t: TestApp;
  const lines: string[] = [];
  beforeAll(async () => {
    t = await testApp('sqlite', { demo: true });
  });
  afterAll(() => t.close());

  it('starting the app logs no other warning than embedded mode’s (the spec router warned of the event stream’s response type)', async () => {
    const startup: string[] = [];
    const app = await buildApp(
      { ...t.config, logLevel: 'warn' },
      { store: t.store, logStream: { write: (l) => startup.push(l) } },
    );
    try {
      await app.ready();
      // Embedded mode's notice about its generated secrets is the one warning a start may give.
      expect(startup.filter((line) => !line.includes('embedded mode:'))).toEqual([]);
    } finally {
      await app.close();
    }
  });

  it('carry requests but no password, signature, token, seed or key', async () => {
    const app = await buildApp(
      { ...t.config, logLevel: 'trace' },
      { store: t.store, logStream: { write: (l) => lines.push(l) } },
    );
    const me = ledgerUser(DEMO_SEED);
    const expiry = Math.floor(Date.now() / 1000) + 600;
    const password = me.password(expiry);
    const query = new URLSearchParams({
      grant_type: 'password',
      scope: 'general',
      username: me.username,
      password,
      client_id: 'waves.exchange',
    });
    const viaQuery = await app.inject({
      method: 'POST',
      url: `/v1/oauth2/token?${query}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(viaQuery.statusCode).toBe(200);
    const pair = await signIn(app, me, expiry);
    const refreshed = await postToken(app, {
      grant_type: 'refresh_token',
      scope: 'general',
      client_id: 'waves.exchange',
      refresh_token: pair.refresh_token,
    });
    expect(refreshed.statusCode).toBe(200);
    const withdrawal = await app.inject({
      url: '/v1/withdraw/addresses/USDT/0x3f2b1c25A5f23b193560B97988ee98cBDb480730/ETH',
      headers: { authorization: `Bearer ${pair.access_token}` },
    });
    expect(withdrawal.statusCode).toBe(200);
    await app.inject({ url: '/v1/movements', headers: { authorization: 'Bearer forged.token.here' } });
    await app.close();

    const log = lines.join('\n');
    // One line per request (5 were made), with its id, operation, status and duration.
    const requests = lines.map((line) => JSON.parse(line)).filter((entry) => entry.msg === 'request');
    expect(requests.map((r) => [r.operation, r.status])).toEqual([
      ['createToken', 200],
      ['createToken', 200],
      ['createToken', 200],
      ['getWithdrawalAddresses', 200],
      ['listMovements', 401],
    ]);
    for (const r of requests) {
      expect(typeof r.reqId).toBe('string');
      // Once: the request's child logger carries it, the line does not repeat it.
      expect(
        lines
          .find((line) => line.includes(`"reqId":"${r.reqId}"`) && line.includes('"msg":"request"'))
          ?.split('"reqId"'),
      ).toHaveLength(2);
      expect(r.durationMs).toBeGreaterThan(0);
      expect(r.path).not.toContain('?');
    }
    const secrets = JSON.parse(readFileSync(`${t.config.dataDir}/secrets.json`, 'utf8'));
    const forbidden = {
      signature: password.split(':')[1] ?? '',
      accessToken: pair.access_token,
      accessTokenSignature: pair.access_token.split('.')[2] ?? '',
      refreshToken: pair.refresh_token,
      newRefreshToken: refreshed.json().refresh_token,
      proxySeed: secrets.proxySeed,
      cursorSecret: secrets.cursorSecret,
      signingKey: secrets.tokenSigningKey.split('\n')[1],
      forgedBearer: 'forged.token.here',
    };
    for (const [name, value] of Object.entries(forbidden)) {
      expect(value.length, name).toBeGreaterThan(8);
      expect(log.includes(value), `${name} appears in the log`).toBe(false);
    }
  });
});

describe('request ids', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp('sqlite', { demo: true });
  });
  afterAll(() => t.close());

  it('are returned on every answer, and unique across instances', async () => {
    const other = await t.another();
    const answers = await Promise.all(
      [t.app, other].flatMap((app) =>
        ['/v1/platforms', '/v1/platforms/SOL', '/v1/movements', '/nowhere', '/health/live'].map((url) =>
          app.inject({ url }),
        ),
      ),
    );
    expect(answers.map((a) => a.statusCode)).toEqual([200, 404, 401, 404, 200, 200, 404, 401, 404, 200]);
    const ids = answers.map((a) => a.headers['x-request-id']);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-z]+$/);
    expect(new Set(ids).size).toBe(ids.length);
    // Each instance counts from one: the instance part is what keeps them apart.
    const instances = new Set(ids.map((id) => String(id).split('-')[0]));
    expect(instances.size).toBe(2);
  });

  it("take a proxy's X-Request-Id only behind a trusted proxy, and only a well-formed one", async () => {
    const direct = await t.app.inject({ url: '/health/live', headers: { 'x-request-id': 'abc-123' } });
    expect(direct.headers['x-request-id']).not.toBe('abc-123');
    const behind = await buildApp({ ...t.config, trustProxyHops: 1 }, { store: t.store });
    try {
      const given = await behind.inject({ url: '/health/live', headers: { 'x-request-id': 'f3a9c2e1d4b5a697' } });
      expect(given.headers['x-request-id']).toBe('f3a9c2e1d4b5a697');
      for (const bad of ['', 'x'.repeat(129), 'a b', 'a\u0000b', '<script>', "' OR 1=1--"]) {
        const answer = await behind.inject({ url: '/health/live', headers: { 'x-request-id': bad } });
        expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-z]+$/);
      }
    } finally {
      await behind.close();
    }
  });

  it('the request line names the client address, user agent and account; a start names release, instance and key', async () => {
    const lines: string[] = [];
    const app = await buildApp(
      { ...t.config, logLevel: 'info', trustProxyHops: 1 },
      { store: t.store, logStream: { write: (l) => lines.push(l) } },
    );
    try {
      await app.listen({ port: 0, host: '127.0.0.1' });
      const me = ledgerUser(DEMO_SEED);
      const { access_token } = await signIn(app, me);
      await app.inject({
        url: '/v1/movements?limit=1',
        headers: {
          authorization: `Bearer ${access_token}`,
          'user-agent': 'wallet/2.1',
          'x-forwarded-for': '203.0.113.9',
        },
      });
      await app.inject({ url: '/v1/platforms', headers: { 'user-agent': 'u'.repeat(1000) } });
    } finally {
      await app.close();
    }
    const entries = lines.map((line) => JSON.parse(line));
    const started = entries.find((e) => String(e.msg).startsWith('gateway '));
    expect(started).toMatchObject({ database: 'sqlite', redis: false, trustProxyHops: 1 });
    expect(started.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(started.instance).toMatch(/^[0-9a-f]{8}$/);
    expect(started.keyId).toMatch(/^[\w-]{16}$/);
    const requests = entries.filter((e) => e.msg === 'request');
    const movements = requests.find((r) => r.operation === 'listMovements');
    expect(movements).toMatchObject({
      client: '203.0.113.9',
      userAgent: 'wallet/2.1',
      account: ledgerUser(DEMO_SEED).address,
      status: 200,
    });
    expect(String(movements.reqId).startsWith(started.instance)).toBe(true);
    const platforms = requests.find((r) => r.operation === 'listPlatforms');
    expect(platforms.userAgent).toHaveLength(200);
    expect(platforms.account).toBeUndefined();
  });
});

describe('aborted requests', () => {
  it('a client leaving in the middle of its body is one info line without a stack, and never a database outage', async () => {
    const t = await testApp('sqlite', { demo: true });
    const lines: string[] = [];
    const app = await buildApp(
      { ...t.config, logLevel: 'info' },
      { store: t.store, logStream: { write: (l) => lines.push(l) } },
    );
    try {
      await app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = app.server.address() as AddressInfo;
      const ABORTS = 20;
      await Promise.all(
        Array.from(
          { length: ABORTS },
          () =>
            new Promise<void>((resolve) => {
              const socket = connect(port, '127.0.0.1', () => {
                socket.write(
                  'POST /v1/oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n' +
                    'Content-Length: 1000\r\n\r\ngrant_type=pass',
                );
                setTimeout(() => socket.destroy(), 100);
              });
              socket.on('close', () => resolve());
            }),
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      const entries = lines
        .map((line) => JSON.parse(line))
        .filter((e) => !/^(gateway |embedded mode:)/.test(String(e.msg)));
      const aborted = entries.filter((e) => e.msg === 'request aborted by the client');
      expect(aborted).toHaveLength(ABORTS);
      for (const entry of aborted) {
        expect(entry).toMatchObject({ level: 30, operation: 'createToken', path: '/v1/oauth2/token' });
        expect(entry.err).toBeUndefined();
      }
      // Nothing else: no error line, no stack, no "database lost".
      expect(entries.filter((e) => e.msg !== 'request aborted by the client' && !/listening/.test(e.msg))).toEqual([]);
      expect(lines.join('\n')).not.toMatch(/stack|database lost/);
      // The server still answers.
      expect((await fetch(`http://127.0.0.1:${port}/health/serving`)).status).toBe(200);
    } finally {
      await app.close();
      await t.close();
    }
  });
});

describe('where log lines go', () => {
  it('a given stream; else readable lines on a terminal; else JSON on standard output', () => {
    const stream = { write: () => {} };
    expect(logDestination(stream, true)).toEqual({ stream });
    expect(logDestination(undefined, true)).toMatchObject({ transport: { target: 'pino-pretty' } });
    expect(logDestination(undefined, false)).toEqual({});
  });
});
