/**
 * GET /v1/events's ids tell an account nothing of the others: they are its own (1, 2, 3…), a new account's
 * stream starts at 0 and its first event is 1 whatever other accounts' imports do, on this instance and on
 * another; a resume is exact; an id beyond the account's last (far ahead, another account's, one the
 * previous release handed out after the upgrade) gets a `reset` at the account's own last id; a pruned
 * stretch gets a `reset` where the kept events begin. Across the upgrade (migration 0009) a client holding
 * the server-wide id of its last position resumes exactly, an older one gets a `reset`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import { demoFiles } from '../../src/operator/commands.js';
import { pruneEventsBefore } from '../../src/store/events.js';
import { SERVER_COUNT_FLOOR } from '../../src/store/migrations/0009-account-event-ids.js';
import { upsertMovements } from '../../src/store/movements.js';
import type { MovementRecord } from '../../src/store/schema.js';
import { signIn, type TestApp, testApp } from '../support/app.js';
import { createTestStore, DATABASES, type TestStore } from '../support/databases.js';
import { migrationBefore, stepwise } from '../support/migrations.js';
import { ledgerUser, me, someoneElse } from '../support/signers.js';
import { Sse } from '../support/sse.js';

/** The last migration of the release before each account's event ids: its schema, and what it writes. */
const PREVIOUS_RELEASE = migrationBefore('0009_account_event_ids');

const demoLine = JSON.parse(readFileSync(demoFiles.movements, 'utf8').split('\n')[0] ?? '{}');
const movement = (
  account: string,
  id: string,
  status: MovementRecord['status'] = 'pending_approval',
): MovementRecord => ({
  ...demoLine,
  transactions: JSON.stringify(demoLine.transactions),
  id,
  account,
  status,
  recipient_address: account,
});
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const reset = (reason: 'expired' | 'unknown') => JSON.stringify({ type: 'reset', reason });
/** The ids and kinds of a stream's messages: `0` a position, `reset 3`, `movement 4`. */
const trace = (sse: Sse) => sse.messages.map((m) => (m.event ? `${m.event} ${m.id}` : m.id));

describe.each(DATABASES)('event ids on %s', (kind) => {
  let t: TestApp;
  let other: FastifyInstance;
  let base: string;
  let otherBase: string;
  const fresh = ledgerUser('event ids: an account created for this test');
  let freshToken: string;
  let demoToken: string;

  beforeAll(async () => {
    // The demo exchange: its account (`me`) has 60 events before the fresh account signs in.
    t = await testApp(kind, { demo: true });
    other = await t.another();
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    otherBase = await other.listen({ port: 0, host: '127.0.0.1' });
    freshToken = (await signIn(t.app, fresh)).access_token;
    demoToken = (await signIn(t.app, me)).access_token;
  });
  afterAll(() => t?.close());

  it('a new account starts at 0 and its first event is 1, on both instances, whatever the others import', async () => {
    const here = await Sse.open(base, freshToken);
    const there = await Sse.open(otherBase, freshToken);
    try {
      expect(trace(here)).toEqual(['0']);
      await upsertMovements(
        t.store.db,
        Array.from({ length: 50 }, (_, i) => movement(someoneElse.address, `ids-other-${i}`)),
      );
      await upsertMovements(t.store.db, [movement(fresh.address, 'ids-fresh-1')]);
      await upsertMovements(t.store.db, [
        movement(someoneElse.address, 'ids-other-x'),
        movement(me.address, 'ids-me-x'),
      ]);
      await upsertMovements(t.store.db, [movement(fresh.address, 'ids-fresh-2')]);
      await here.until(() => here.movements.length === 2);
      await there.until(() => there.movements.length === 2);
      expect(trace(here)).toEqual(['0', 'movement 1', 'movement 2']);
      expect(trace(there)).toEqual(['0', 'movement 1', 'movement 2']);
      // The demo account's position is its own count: its demo movements, then this test's one.
      const { n } = await t.store.db
        .selectFrom('movement_events')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('account', '=', me.address)
        .executeTakeFirstOrThrow();
      const demo = await Sse.open(base, demoToken);
      expect(trace(demo)).toEqual([String(n)]);
      demo.close();
    } finally {
      here.close();
      there.close();
    }
  });

  it('a resume is exact, by the header and by the query parameter', async () => {
    await upsertMovements(t.store.db, [
      movement(fresh.address, 'ids-fresh-3'),
      movement(fresh.address, 'ids-fresh-1', 'in_progress'),
    ]);
    for (const via of ['header', 'query'] as const) {
      const again = await Sse.open(base, freshToken, '1', via);
      try {
        await again.until(() => again.movements.length === 3);
        expect(trace(again)).toEqual(['movement 2', 'movement 3', 'movement 4']);
        expect(again.movements).toEqual([
          'ids-fresh-2:pending_approval',
          'ids-fresh-3:pending_approval',
          'ids-fresh-1:in_progress',
        ]);
      } finally {
        again.close();
      }
    }
  });

  it('an id beyond the account’s last (far ahead, another account’s) gets a reset at the account’s own last id', async () => {
    // The fresh account has 4 events; the demo account some 50; the server many more than either.
    for (const [id, via] of [
      ['999999999', 'header'],
      ['50', 'header'],
      ['5', 'query'],
      [String(SERVER_COUNT_FLOOR + 7), 'header'],
    ] as const) {
      const sse = await Sse.open(base, freshToken, id, via);
      try {
        expect(sse.messages[0], id).toEqual({ event: 'reset', id: '4', data: reset('unknown') });
        await pause(100);
        expect(sse.events, id).toHaveLength(1);
      } finally {
        sse.close();
      }
    }
    // Another account's id at or below the account's own last is read as its own: only its own events come.
    const low = await Sse.open(base, freshToken, '3');
    try {
      expect(trace(low)).toEqual(['movement 4']);
      expect(low.movements).toEqual(['ids-fresh-1:in_progress']);
    } finally {
      low.close();
    }
  });

  it('a pruned stretch gets a reset where the kept events begin, then the kept events; all pruned, at the last', async () => {
    const account = ledgerUser('event ids: pruned');
    const token = (await signIn(t.app, account)).access_token;
    await upsertMovements(t.store.db, [movement(account.address, 'ids-pr-1'), movement(account.address, 'ids-pr-2')]);
    await pause(5);
    const cut = new Date().toISOString();
    await pause(5);
    await upsertMovements(t.store.db, [movement(account.address, 'ids-pr-3'), movement(account.address, 'ids-pr-4')]);
    await pruneEventsBefore(t.store.db, cut);
    const partly = await Sse.open(base, token, '1');
    try {
      await partly.until(() => partly.movements.length === 2);
      expect(trace(partly)).toEqual(['reset 2', 'movement 3', 'movement 4']);
      expect(partly.events[0]?.data).toBe(reset('expired'));
    } finally {
      partly.close();
    }
    await pruneEventsBefore(t.store.db, new Date(Date.now() + 60_000).toISOString());
    const all = await Sse.open(base, token, '1');
    try {
      expect(trace(all)).toEqual(['reset 4']);
      expect(all.events[0]?.data).toBe(reset('expired'));
    } finally {
      all.close();
    }
  });
});

describe.each(DATABASES)('event ids across the upgrade on %s', (kind) => {
  let database: TestStore;
  let app: FastifyInstance;
  let base: string;
  let token: string;
  let dir: string;
  /** The server-wide count when the upgrade ran. */
  const m = 5;

  beforeAll(async () => {
    database = await createTestStore(kind, { migrate: false });
    const { db: untyped, migrateTo } = await stepwise(database);
    await migrateTo(PREVIOUS_RELEASE);
    // The previous release recorded 5 events, 3 of them the demo account's (ids 1, 3 and 5 for its clients).
    for (let i = 1; i <= m; i++) {
      await sql`insert into movement_events (account, movement_id, document, created_at)
        values (${i % 2 ? me.address : someoneElse.address}, ${`up-old-${i}`}, '{}', ${new Date().toISOString()})`.execute(
        untyped,
      );
    }
    await database.store.migrate();
    dir = mkdtempSync(path.join(tmpdir(), 'gateway-event-ids-'));
    app = await buildApp(testConfig({ dataDir: dir, tokenRateLimit: 100_000 }), { store: database.store });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
    token = (await signIn(app, me)).access_token;
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await database?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a client holding the position of before resumes exactly; an older id gets a reset; so does the previous release’s', async () => {
    const position = await Sse.open(base, token);
    expect(trace(position)).toEqual([String(m)]);
    position.close();
    await upsertMovements(database.store.db, [movement(me.address, 'up-new-1')]);
    const exact = await Sse.open(base, token, String(m));
    const older = await Sse.open(base, token, '3');
    const previous = await Sse.open(base, token, String(SERVER_COUNT_FLOOR + 2));
    try {
      await exact.until(() => exact.movements.length === 1);
      expect(trace(exact)).toEqual([`movement ${m + 1}`]);
      expect(older.messages[0]).toEqual({ event: 'reset', id: String(m + 1), data: reset('expired') });
      expect(previous.messages[0]).toEqual({ event: 'reset', id: String(m + 1), data: reset('unknown') });
      // An event the previous release still records (a rolling upgrade) comes live with the account's next id.
      await sql`insert into movement_events (account, movement_id, document, created_at)
        values (${me.address}, 'up-prev-1', '{}', ${new Date().toISOString()})`.execute(database.store.db);
      await exact.until(() => exact.events.length === 2);
      await older.until(() => older.events.length === 2);
      expect(trace(exact)).toEqual([`movement ${m + 1}`, `movement ${m + 2}`]);
      expect(trace(older)).toEqual([`reset ${m + 1}`, `movement ${m + 2}`]);
    } finally {
      exact.close();
      older.close();
      previous.close();
    }
  });
});
