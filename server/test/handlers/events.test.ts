/**
 * GET /v1/events over a real socket: events from another process's import, from another instance, a resume
 * by Last-Event-ID, the retention window, the end at the token's expiry and at the sign-in's revocation (on
 * the revoking instance and on another), the limits of open streams, and the refusals.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import { demoFiles, loadDemoIfEmpty } from '../../src/operator/commands.js';
import { pruneEventsBefore } from '../../src/store/events.js';
import { upsertMovements } from '../../src/store/movements.js';
import type { MovementRecord } from '../../src/store/schema.js';
import { openStore, type Store } from '../../src/store/store.js';
import { codeOf, postToken, signIn } from '../support/app.js';
import { DATABASES, type DatabaseForProcesses, databaseForProcesses } from '../support/databases.js';
import { me, someoneElse } from '../support/signers.js';
import { Sse } from '../support/sse.js';

const run = promisify(execFile);
const CLI = path.resolve(import.meta.dirname, '../../dist/cli.js');
const WAIT_MS = 15_000;

const demoLine = JSON.parse(readFileSync(demoFiles.movements, 'utf8').split('\n')[0] ?? '{}');
/** The first demo movement, as the store takes it (its transactions as JSON text). */
const firstDemo: MovementRecord = { ...demoLine, transactions: JSON.stringify(demoLine.transactions) };
/** A movement of `account` (a demo record with another id and status). */
const movement = (
  account: string,
  id: string,
  status: MovementRecord['status'] = 'pending_approval',
): MovementRecord => ({
  ...firstDemo,
  id,
  account,
  status,
  recipient_address: account,
});
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The spec's bound on how late another instance may learn of a revocation. */
const REVOCATION_BOUND_MS = 5000;

/** An answer to GET /v1/events that is not a stream (a refusal): its status, headers and body. */
async function refusal(base: string, token: string) {
  const response = await fetch(`${base}/v1/events`, {
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
  });
  if (response.status === 200) {
    // A stream, not a refusal: let it go (its text would never end).
    await response.body?.cancel();
    return { status: response.status, headers: response.headers, body: { errors: [] as ErrorItem[] } };
  }
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as { errors: ErrorItem[] },
  };
}
interface ErrorItem {
  code: number;
  message: string;
  details?: Record<string, string>;
}

/** A sample of /metrics (`name` or `name{labels}`), as a number; undefined when absent. */
async function metric(app: FastifyInstance, series: string): Promise<number | undefined> {
  const text = (await app.inject({ url: '/metrics', headers: { accept: 'text/plain' } })).body;
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** Waits until `check` holds (polling), failing after `ms`. */
async function eventually(check: () => Promise<boolean>, what: string, ms = WAIT_MS): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await pause(25);
  }
}

/**
 * The expiry of a sign-in of the demo account that a test revokes: a minute ahead, and after the last one
 * (a revocation ends the account's passwords expiring up to its own), so that the account's later sign-ins,
 * signed further ahead, are not refused.
 */
let lastRevokedExpiry = 0;
const inAMinute = () => {
  lastRevokedExpiry = Math.max(Math.floor(Date.now() / 1000) + 60, lastRevokedExpiry + 1);
  return lastRevokedExpiry;
};

const revoke = (app: FastifyInstance, refreshToken: string) =>
  app.inject({
    method: 'POST',
    url: '/v1/oauth2/revoke',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ token: refreshToken, token_type_hint: 'refresh_token' }).toString(),
  });

describe.each(DATABASES)('GET /v1/events on %s', (kind) => {
  let dir: string;
  let database: DatabaseForProcesses;
  let app: FastifyInstance;
  let other: FastifyInstance;
  let otherStore: Store;
  let base: string;
  let otherBase: string;
  let token: string;
  let othersToken: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'gateway-events-'));
    database = await databaseForProcesses(kind, dir);
    const config = testConfig({ dataDir: dir, tokenRateLimit: 100_000 });
    await database.store.migrate();
    await loadDemoIfEmpty(database.store, config.chainId);
    app = await buildApp(config, { store: database.store });
    // Another instance on the same database (its own store: its own connections and reader).
    otherStore = openStore(database.env.DATABASE_URL as string);
    other = await buildApp(config, { store: otherStore });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
    otherBase = await other.listen({ port: 0, host: '127.0.0.1' });
    token = (await signIn(app, me)).access_token;
    othersToken = (await signIn(app, someoneElse)).access_token;
  });
  afterAll(async () => {
    // Every stream is closed by now; fetch's pool may hold a connection it never sent a request on, which
    // would hold close() for the server's headers timeout (60 s): such connections are let go.
    const letGo = setInterval(() => {
      app?.server.closeAllConnections();
      other?.server.closeAllConnections();
    }, 100);
    await app?.close();
    await other?.close();
    clearInterval(letGo);
    await otherStore?.close();
    await database?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('opens with text/event-stream, no-store, no proxy buffering, a retry and the position it starts from', async () => {
    const sse = await Sse.open(base, token);
    try {
      expect(sse.status).toBe(200);
      expect(sse.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(sse.headers.get('cache-control')).toBe('no-store');
      expect(sse.headers.get('x-accel-buffering')).toBe('no');
      expect(sse.messages[0]?.id).toMatch(/^\d+$/);
      expect(sse.events).toEqual([]);
    } finally {
      sse.close();
    }
  });

  it('a movement imported by another process (gateway movements import) reaches a connected client', async () => {
    const mine = await Sse.open(base, token);
    const theirs = await Sse.open(otherBase, othersToken);
    try {
      const lines = [movement(me.address, 'ev-cli-1'), movement(someoneElse.address, 'ev-cli-other')].map((m) => ({
        ...m,
        transactions: JSON.parse(m.transactions),
      }));
      const file = path.join(dir, 'events.ndjson');
      writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
      const result = await run(process.execPath, [CLI, 'movements', 'import', file], {
        env: { ...process.env, ...database.env, LOG_LEVEL: 'error' },
      });
      expect(result.stderr).toBe('');
      await mine.until(() => mine.movements.length >= 1);
      await theirs.until(() => theirs.movements.length >= 1);
      expect(mine.movements).toEqual(['ev-cli-1:pending_approval']);
      // The same JSON as GET /v1/movements/{id}.
      const one = await app.inject({
        url: '/v1/movements/ev-cli-1',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(mine.events[0]?.data).toBe(one.body);
      expect(theirs.movements).toEqual(['ev-cli-other:pending_approval']);
      // The same file again changes nothing and announces nothing.
      await run(process.execPath, [CLI, 'movements', 'import', file], {
        env: { ...process.env, ...database.env, LOG_LEVEL: 'error' },
      });
      await pause(1000);
      expect(mine.movements).toHaveLength(1);
    } finally {
      mine.close();
      theirs.close();
    }
  }, 60_000);

  it('an import through one instance reaches a client of the other; another account never sees it', async () => {
    const mine = await Sse.open(otherBase, token);
    const theirs = await Sse.open(otherBase, othersToken);
    try {
      await upsertMovements(database.store.db, [movement(me.address, 'ev-inst-1')]);
      await mine.until(() => mine.movements.length === 1);
      expect(mine.movements).toEqual(['ev-inst-1:pending_approval']);
      await pause(500);
      expect(theirs.movements).toEqual([]);
    } finally {
      mine.close();
      theirs.close();
    }
  });

  it('a client that reconnects with Last-Event-ID receives exactly the events it missed, in order', async () => {
    const first = await Sse.open(base, token);
    await upsertMovements(database.store.db, [movement(me.address, 'ev-miss-0')]);
    await first.until(() => first.movements.length === 1);
    const last = first.lastId as string;
    first.close();
    // Missed: a creation, another account's movement, a change, two more in one batch.
    await upsertMovements(database.store.db, [movement(me.address, 'ev-miss-1')]);
    await upsertMovements(database.store.db, [movement(someoneElse.address, 'ev-miss-other')]);
    await upsertMovements(database.store.db, [movement(me.address, 'ev-miss-0', 'in_progress')]);
    await upsertMovements(database.store.db, [movement(me.address, 'ev-miss-2'), movement(me.address, 'ev-miss-3')]);
    const again = await Sse.open(otherBase, token, last);
    try {
      await again.until(() => again.movements.length >= 4);
      expect(again.movements).toEqual([
        'ev-miss-1:pending_approval',
        'ev-miss-0:in_progress',
        'ev-miss-2:pending_approval',
        'ev-miss-3:pending_approval',
      ]);
      const ids = again.events.map((m) => Number(m.id));
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      expect(ids[0]).toBeGreaterThan(Number(last));
      // Then live events, once each.
      await upsertMovements(database.store.db, [movement(me.address, 'ev-miss-4')]);
      await again.until(() => again.movements.length === 5);
      await pause(500);
      expect(again.movements.at(-1)).toBe('ev-miss-4:pending_approval');
      expect(again.movements).toHaveLength(5);
      // Through the query parameter too, and nothing missed gives nothing.
      const byQuery = await fetch(`${base}/v1/events?last_event_id=${last}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(byQuery.status).toBe(200);
      await byQuery.body?.cancel();
    } finally {
      again.close();
    }
  });

  it('an id older than the retention window, or never issued, is answered with a reset event, then live events', async () => {
    await upsertMovements(database.store.db, [movement(me.address, 'ev-old-1')]);
    const start = await Sse.open(base, token);
    const old = Number(start.lastId) - 1;
    start.close();
    // Everything recorded so far falls out of the window.
    await pruneEventsBefore(database.store.db, new Date(Date.now() + 60_000).toISOString());
    const expired = await Sse.open(base, token, String(old));
    const unknown = await Sse.open(base, token, '999999999999');
    try {
      expect(expired.events[0]).toMatchObject({ event: 'reset', data: '{"type":"reset","reason":"expired"}' });
      expect(unknown.events[0]).toMatchObject({ event: 'reset', data: '{"type":"reset","reason":"unknown"}' });
      await upsertMovements(database.store.db, [movement(me.address, 'ev-old-2')]);
      await expired.until(() => expired.movements.length === 1);
      expect(expired.movements).toEqual(['ev-old-2:pending_approval']);
      expect(Number(expired.lastId)).toBeGreaterThan(Number(expired.events[0]?.id));
    } finally {
      expired.close();
      unknown.close();
    }
  });

  it('the stream ends when the access token expires', async () => {
    const short = await signIn(app, me, Math.floor(Date.now() / 1000) + 3);
    const sse = await Sse.open(base, short.access_token);
    await sse.until(() => sse.ended, 10_000);
    expect(sse.ended).toBe(true);
  });

  it('a sign-in revoked on this instance has its open stream ended at once, and it receives nothing after', async () => {
    const device = await signIn(app, me, inAMinute());
    const revoked = await Sse.open(base, device.access_token);
    // Another sign-in of the same account: its stream goes on and shows the movement was sent.
    const control = await Sse.open(base, token);
    try {
      const started = Date.now();
      expect((await revoke(app, device.refresh_token)).statusCode).toBe(200);
      // Imported at once: the revoked stream must not carry it, however late it would be ended.
      await upsertMovements(database.store.db, [movement(me.address, 'ev-revoked-1')]);
      await revoked.until(() => revoked.ended, REVOCATION_BOUND_MS);
      // Well before the 15 s heartbeat, which was the only check before.
      expect(Date.now() - started).toBeLessThan(REVOCATION_BOUND_MS);
      await control.until(() => control.movements.includes('ev-revoked-1:pending_approval'));
      expect(revoked.movements).toEqual([]);
      // Reconnecting with the same access token is refused.
      const again = await refusal(base, device.access_token);
      expect(again.status).toBe(401);
      expect(again.body.errors[0]?.code).toBe(10000);
    } finally {
      revoked.close();
      control.close();
    }
  });

  // PostgreSQL only (SQLite has one writing process, no announcements between instances): declared only there.
  if (kind === 'postgres')
    it('a sign-in revoked on one instance has its open stream on another ended within the bound, and it receives nothing after', async () => {
      const device = await signIn(app, me, inAMinute());
      const revoked = await Sse.open(otherBase, device.access_token);
      const control = await Sse.open(otherBase, token);
      try {
        const started = Date.now();
        expect((await revoke(app, device.refresh_token)).statusCode).toBe(200);
        await revoked.until(() => revoked.ended, REVOCATION_BOUND_MS + 1000);
        expect(Date.now() - started).toBeLessThan(REVOCATION_BOUND_MS + 1000);
        await upsertMovements(database.store.db, [movement(me.address, 'ev-revoked-other-1')]);
        await control.until(() => control.movements.includes('ev-revoked-other-1:pending_approval'));
        expect(revoked.movements).toEqual([]);
      } finally {
        revoked.close();
        control.close();
      }
    }, 30_000);

  it('refuses no token or a bad one (401) and a malformed Last-Event-ID (400, 10201)', async () => {
    const none = await app.inject({ url: '/v1/events' });
    expect(none.statusCode).toBe(401);
    expect(codeOf(none)).toBe(10000);
    const bad = await app.inject({ url: '/v1/events', headers: { authorization: 'Bearer a.b.c' } });
    expect(bad.statusCode).toBe(401);
    expect(codeOf(bad)).toBe(10000);
    for (const headers of [{ 'last-event-id': 'abc' }, { 'last-event-id': '-1' }, { 'last-event-id': '01' }]) {
      const malformed = await app.inject({
        url: '/v1/events',
        headers: { authorization: `Bearer ${token}`, ...headers },
      });
      expect(malformed.statusCode, JSON.stringify(headers)).toBe(400);
      expect(codeOf(malformed)).toBe(10201);
    }
    const query = await app.inject({
      url: '/v1/events?last_event_id=1e3',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(query.statusCode).toBe(400);
    expect(codeOf(query)).toBe(10201);
  });

  it('records an event per movement created or changed, in the write’s transaction; none for an identical one', async () => {
    const count = async () =>
      Number(
        (
          await database.store.db
            .selectFrom('movement_events')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count();
    await upsertMovements(database.store.db, [movement(me.address, 'ev-count-1'), movement(me.address, 'ev-count-2')]);
    expect(await count()).toBe(before + 2);
    await upsertMovements(database.store.db, [movement(me.address, 'ev-count-1'), movement(me.address, 'ev-count-2')]);
    expect(await count()).toBe(before + 2);
    // A refused batch (an order change) keeps neither its rows nor its events.
    await expect(
      upsertMovements(database.store.db, [
        movement(me.address, 'ev-count-3'),
        { ...movement(me.address, 'ev-count-1'), created_at: '2031-01-01T00:00:00.000Z' },
      ]),
    ).rejects.toThrow();
    expect(await count()).toBe(before + 2);
  });

  describe('with limits of 2 streams an account and 3 an instance', () => {
    let limited: FastifyInstance;
    let limitedBase: string;
    beforeAll(async () => {
      const config = testConfig({
        dataDir: dir,
        tokenRateLimit: 100_000,
        eventStreamsPerAccount: 2,
        eventStreamsPerInstance: 3,
      });
      limited = await buildApp(config, { store: database.store });
      limitedBase = await limited.listen({ port: 0, host: '127.0.0.1' });
    });
    afterAll(async () => {
      // Every stream is closed by now. fetch's pool may still open a connection it never sends a request on,
      // which would hold close() for the server's headers timeout (60 s): such connections are let go.
      const letGo = setInterval(() => limited?.server.closeAllConnections(), 100);
      await limited?.close();
      clearInterval(letGo);
    });

    it('the account’s third stream is refused 429 (11101) at once; a slot is free again when one closes', async () => {
      const first = await Sse.open(limitedBase, token);
      const second = await Sse.open(limitedBase, token);
      let third: Sse | undefined;
      try {
        const refused = await refusal(limitedBase, token);
        expect(refused.status).toBe(429);
        expect(refused.body.errors[0]).toMatchObject({ code: 11101, details: { limit: '2' } });
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
        // Another account is not held to this one's limit.
        const theirs = await Sse.open(limitedBase, othersToken);
        theirs.close();
        expect(theirs.status).toBe(200);
        first.close();
        await eventually(
          async () => (await metric(limited, 'gateway_event_streams_open')) === 1,
          'the closed streams to be counted out',
        );
        third = await Sse.open(limitedBase, token);
        expect(third.status).toBe(200);
        expect(await metric(limited, 'gateway_event_streams_refused_total{reason="account"}')).toBe(1);
      } finally {
        first.close();
        second.close();
        third?.close();
      }
      await eventually(
        async () => (await metric(limited, 'gateway_event_streams_open')) === 0,
        'every stream to be counted out',
      );
    });

    it('past the instance’s limit a stream is refused 503 (11201) with Retry-After, whoever asks', async () => {
      const held = [
        await Sse.open(limitedBase, token),
        await Sse.open(limitedBase, token),
        await Sse.open(limitedBase, othersToken),
      ];
      try {
        expect(held.map((s) => s.status)).toEqual([200, 200, 200]);
        expect(await metric(limited, 'gateway_event_streams_open')).toBe(3);
        expect(await metric(limited, 'gateway_event_streams_limit')).toBe(3);
        const refused = await refusal(limitedBase, othersToken);
        expect(refused.status).toBe(503);
        expect(refused.body.errors[0]?.code).toBe(11201);
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(await metric(limited, 'gateway_event_streams_refused_total{reason="instance"}')).toBe(1);
        // Everything else is answered as before.
        const platforms = await fetch(`${limitedBase}/v1/platforms`);
        expect(platforms.status).toBe(200);
        await platforms.text();
      } finally {
        for (const sse of held) sse.close();
      }
    });
  });

  it('a stream ends when its access token expires, and carries no event past the expiry', async () => {
    let clock = Date.now();
    const config = testConfig({ dataDir: dir, tokenRateLimit: 100_000 });
    const timed = await buildApp(config, { store: database.store, now: () => clock });
    try {
      const timedBase = await timed.listen({ port: 0, host: '127.0.0.1' });
      const response = await postToken(timed, {
        grant_type: 'password',
        scope: 'general',
        username: me.username,
        password: me.password(Math.floor(clock / 1000) + 600),
        client_id: 'waves.exchange',
      });
      const short = (response.json() as { access_token: string }).access_token;
      const sse = await Sse.open(timedBase, short);
      const control = await Sse.open(base, token);
      // The token expires (the clock moves past it; the stream's own timer, in real time, is far off).
      clock += 601_000;
      await upsertMovements(database.store.db, [movement(me.address, 'ev-expired-1')]);
      await control.until(() => control.movements.includes('ev-expired-1:pending_approval'));
      control.close();
      await sse.until(() => sse.ended);
      expect(sse.movements).toEqual([]);
    } finally {
      await timed.close();
    }
  });

  // PostgreSQL only (SQLite commits one transaction at a time): declared only there.
  if (kind === 'postgres')
    it('order rule: a transaction recording events waits for an earlier one, so seq order is commit order', async () => {
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let firstRecorded: () => void = () => {};
      const recorded = new Promise<void>((resolve) => {
        firstRecorded = resolve;
      });
      const first = database.store.db.transaction().execute(async (trx) => {
        await sql`select pg_advisory_xact_lock(hashtext('movement_events_' || current_schema()))`.execute(trx);
        const { seq } = await trx
          .insertInto('movement_events')
          .values({ account: 'x', movement_id: 'order-1', document: '{}', created_at: new Date().toISOString() })
          .returning('seq')
          .executeTakeFirstOrThrow();
        firstRecorded();
        await held;
        return Number(seq);
      });
      await recorded;
      let secondDone = false;
      const second = upsertMovements(otherStore.db, [movement(me.address, 'order-2')]).then(() => {
        secondDone = true;
      });
      await pause(500);
      // The second writer's events wait for the first's commit.
      expect(secondDone).toBe(false);
      release();
      const firstSeq = await first;
      await second;
      const row = await database.store.db
        .selectFrom('movement_events')
        .select('seq')
        .where('movement_id', '=', 'order-2')
        .executeTakeFirstOrThrow();
      expect(Number(row.seq)).toBeGreaterThan(firstSeq);
    });
});
