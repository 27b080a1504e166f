/**
 * A hostile client takes event-stream slots without holding streams (issue 39, finding 4): `HEAD /v1/events`
 * (answered 200, its connection closed) once held a stream slot of its account and of the instance until
 * the access token expired. Five HEADs and the account's next stream got 429; four new accounts' HEADs under
 * EVENT_STREAMS_PER_INSTANCE=20 and a fifth account's stream got 503. Against the real server on both stores:
 * the HEADs, streams whose connection is reset at once, before their answer or after it, and streams asked
 * for on a connection behind a HEAD, all end with `gateway_event_streams_open` back at 0, and every account
 * then opens as many streams as its limit allows. The figures go to `npm run prove` ('hostile-stream-slots').
 *
 *   cd test && npx vitest run attack/hostile-stream-slots
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { signerFromSeed } from '@gateway/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordFigures } from '../src/figures.js';
import { type RunningGateway, startGateway } from '../src/gateway.js';
import { createDatabase } from '../src/postgres.js';
import { DEMO_SEED, signIn } from './support/session.js';

const PER_ACCOUNT = 5;
const PER_INSTANCE = 20;
/** Accounts that send HEADs: between them, as many as the instance's streams (the finding's 4 × 5). */
const HEAD_ACCOUNTS = PER_INSTANCE / PER_ACCOUNT;
const HEADS_PER_ACCOUNT = 2 * PER_ACCOUNT;
const WAIT_MS = 10_000;

const STORES = ['sqlite', 'postgres'] as const;

/** The secrets every instance on PostgreSQL is given (none is generated there). */
const secrets = () => ({
  TOKEN_SIGNING_KEY: generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  PROXY_SEED: randomBytes(16).toString('hex'),
  CURSOR_SECRET: randomBytes(32).toString('hex'),
});

/** `gateway_event_streams_open` as the instance reports it. */
async function openStreams(gateway: RunningGateway): Promise<number> {
  const text = await (await fetch(`${gateway.url}/metrics`, { headers: { accept: 'text/plain' } })).text();
  const line = text.split('\n').find((l) => l.startsWith('gateway_event_streams_open '));
  return Number(line?.split(' ')[1]);
}

/**
 * Waits for `gateway_event_streams_open` to come down to `count` (a connection's end reaches the server a
 * moment after the client closes it); the last figure seen.
 */
async function settledStreams(gateway: RunningGateway, count: number): Promise<number> {
  const deadline = Date.now() + WAIT_MS;
  let open = await openStreams(gateway);
  while (open !== count && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    open = await openStreams(gateway);
  }
  return open;
}

/** `HEAD /v1/events` on a connection of its own, which closes once answered: its status and content type. */
function head(gateway: RunningGateway, token: string): Promise<{ status: number; type: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${gateway.url}/v1/events`, {
      method: 'HEAD',
      agent: false,
      headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream', connection: 'close' },
    });
    request.on('error', reject);
    request.on('response', (response) => {
      response.resume();
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, type: String(response.headers['content-type']) }),
      );
    });
    request.end();
  });
}

/** A stream opened over a socket of its own: resolved with its socket once the stream's first bytes arrived. */
function openStream(gateway: RunningGateway, token: string): Promise<{ status: number; socket: net.Socket }> {
  const { port } = new URL(gateway.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port: Number(port) });
    let text = '';
    socket.setEncoding('latin1');
    socket.on('error', reject);
    socket.on('data', (chunk: string) => {
      text += chunk;
      // The headers, then (for a stream) its first frame: `retry:` and the position.
      if (/\r\n\r\n[\s\S]*\n\n/.test(text) || (/\r\n\r\n/.test(text) && !/^HTTP\/1\.1 200/.test(text))) {
        resolve({ status: Number(text.slice(9, 12)), socket });
      }
    });
    socket.write(
      `GET /v1/events HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${token}\r\naccept: text/event-stream\r\n\r\n`,
    );
  });
}

/** Writes `requests` (raw HTTP) on a new socket and resets it after `afterMs` (0: at once), reading nothing. */
function sendAndReset(gateway: RunningGateway, requests: string, afterMs: number): Promise<void> {
  const { port } = new URL(gateway.url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port: Number(port) }, () => {
      socket.write(requests);
      setTimeout(() => socket.resetAndDestroy(), afterMs);
    });
    socket.on('error', () => {});
    socket.on('close', () => resolve());
  });
}

const eventsRequest = (token: string, method = 'GET') =>
  `${method} /v1/events HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${token}\r\naccept: text/event-stream\r\n\r\n`;

describe.each(STORES)('a hostile client takes event-stream slots without holding streams, on %s', (store) => {
  let gateway: RunningGateway;
  let database: Awaited<ReturnType<typeof createDatabase>> | undefined;
  /** Attacks tried, and those that left a slot held or a legitimate stream refused. */
  const attacks: { what: string; held: number }[] = [];

  beforeAll(async () => {
    database = store === 'postgres' ? await createDatabase() : undefined;
    gateway = await startGateway({
      EVENT_STREAMS_PER_ACCOUNT: String(PER_ACCOUNT),
      EVENT_STREAMS_PER_INSTANCE: String(PER_INSTANCE),
      ...(database ? { DATABASE_URL: database.url, ...secrets() } : {}),
    });
  }, 120_000);

  afterAll(async () => {
    const alive = gateway ? (await fetch(`${gateway.url}/health/live`).catch(() => null))?.status === 200 : false;
    recordFigures(`hostile-stream-slots-${store}`, {
      check: `event-stream slots taken without streams (${store})`,
      tried: `${attacks.length} attacks: HEADs, resets before and after the answer, a stream behind a HEAD`,
      accepted: attacks.reduce((n, a) => n + a.held, 0),
      alive,
      attacks,
    });
    await gateway?.stop();
    await database?.drop();
  });

  /** Records how many slots an attack left held (0 when the count came back to `expected`). */
  async function afterAttack(what: string, expected = 0) {
    const open = await settledStreams(gateway, expected);
    attacks.push({ what, held: Math.max(0, open - expected) });
    expect(open, `${what}: streams counted open`).toBe(expected);
  }

  it("HEADs take no slot: the accounts' and the instance's streams all open afterwards", async () => {
    const tokens: string[] = [];
    for (let i = 0; i < HEAD_ACCOUNTS + 1; i++) {
      tokens.push((await signIn(gateway.url, signerFromSeed(DEMO_SEED, { nonce: 7100 + i }))).access_token);
    }
    for (const token of tokens.slice(0, HEAD_ACCOUNTS)) {
      for (let i = 0; i < HEADS_PER_ACCOUNT; i++) {
        const answer = await head(gateway, token);
        expect(answer.status).toBe(200);
        expect(answer.type).toMatch(/^text\/event-stream/);
      }
    }
    await afterAttack(`${HEAD_ACCOUNTS * HEADS_PER_ACCOUNT} HEADs of ${HEAD_ACCOUNTS} accounts`);

    // Every account that sent HEADs opens its whole share of streams; the instance is then full.
    const streams: net.Socket[] = [];
    try {
      for (const token of tokens.slice(0, HEAD_ACCOUNTS)) {
        for (let i = 0; i < PER_ACCOUNT; i++) {
          const { status, socket } = await openStream(gateway, token);
          streams.push(socket);
          expect(status, 'a stream of an account that sent HEADs').toBe(200);
        }
      }
      expect(await openStreams(gateway)).toBe(PER_INSTANCE);
      // A HEAD now answers as its GET would (the instance is full) and still takes nothing.
      const full = await head(gateway, tokens[HEAD_ACCOUNTS] as string);
      expect(full.status).toBe(503);
      await afterAttack('a HEAD at a full instance', PER_INSTANCE);
    } finally {
      for (const socket of streams) socket.destroy();
    }
    await afterAttack('streams closed by their clients');
    // The account that sent nothing opens a stream (503 before: the HEADs held the instance's slots).
    const { status, socket } = await openStream(gateway, tokens[HEAD_ACCOUNTS] as string);
    socket.destroy();
    expect(status).toBe(200);
    await afterAttack('the last stream closed');
  }, 120_000);

  it('streams whose connection is reset, before their answer or after it, or behind a HEAD, give their slot back', async () => {
    const { access_token: token } = await signIn(gateway.url, signerFromSeed(DEMO_SEED, { nonce: 7200 }));
    // Reset at once: the stream's answer is being made when its connection goes.
    await Promise.all(Array.from({ length: PER_ACCOUNT * 2 }, () => sendAndReset(gateway, eventsRequest(token), 0)));
    await afterAttack('streams reset before their answer');
    // Reset once open.
    await Promise.all(Array.from({ length: PER_ACCOUNT }, () => sendAndReset(gateway, eventsRequest(token), 200)));
    await afterAttack('streams reset once open');
    // HEADs pipelined with a stream on one connection that reads nothing, then reset.
    const pipelined = `${eventsRequest(token, 'HEAD').repeat(3)}${eventsRequest(token)}`;
    await Promise.all(Array.from({ length: PER_ACCOUNT }, () => sendAndReset(gateway, pipelined, 200)));
    await afterAttack('HEADs and a stream pipelined, then reset');
    // The account still opens all its streams.
    const streams: net.Socket[] = [];
    try {
      for (let i = 0; i < PER_ACCOUNT; i++) {
        const { status, socket } = await openStream(gateway, token);
        streams.push(socket);
        expect(status).toBe(200);
      }
    } finally {
      for (const socket of streams) socket.destroy();
    }
    await afterAttack('the account’s own streams closed');
  }, 120_000);
});
