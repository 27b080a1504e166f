#!/usr/bin/env node
/**
 * What each account's own event ids (migration 0009, server/src/store/events.ts) cost a feed import: the
 * events of a batch recorded as the release before did (the lock, then one insert; a database migrated to
 * the migration before 0009) and as this one does (the lock, each account's ids drawn in `event_accounts`,
 * then the insert with the ids; a database migrated to the end, through the built store's own
 * `recordMovementEvents`), batch by batch in turn on the same kind of database, each batch one transaction.
 * Batches of the CLI's default size (5,000) spread over 10,000 accounts as `bench/data.mjs` spreads them
 * (about 3,900 accounts a batch: the upsert's worst case), and over 10 accounts (its best).
 *
 *   npx turbo run build --output-logs=errors-only
 *   node bench/event-ids.mjs [--batches 20] [--batch 5000] [--skip-pg]
 */
// On the workspace's pinned Node, whatever Node started it (before any other import is evaluated).
import './lib/pinned.mjs';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Migrator, sql } from 'kysely';
import { createRng, median, ROOT } from './lib/common.mjs';

const dist = (file) => import(path.join(ROOT, 'server/dist/store', file));
const { openStore } = await dist('store.js');
const { migrations } = await dist('migrations.js');
const { recordMovementEvents } = await dist('events.js');

const { values: options } = parseArgs({
  options: {
    batches: { type: 'string', default: '20' },
    batch: { type: 'string', default: '5000' },
    'skip-pg': { type: 'boolean', default: false },
  },
});
const BATCHES = Number(options.batches);
const BATCH = Number(options.batch);
const PG_URL =
  process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/** A movement's document as the events hold it (about the size of a served movement). */
const DOCUMENT = JSON.stringify({ type: 'gateway_movement', pad: 'x'.repeat(600) });

/** A store of `kind` on a database of its own (a temporary SQLite file, a PostgreSQL schema) migrated to `to`. */
async function storeAt(kind, to) {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'event-ids-bench-'));
    const store = openStore(`sqlite:${path.join(dir, 'bench.db')}`);
    await migrate(store, to);
    const close = async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    };
    return { store, close };
  }
  const schema = `bench_ids_${randomBytes(5).toString('hex')}`;
  const admin = openStore(PG_URL);
  await sql.raw(`create schema ${schema}`).execute(admin.db);
  const store = openStore(PG_URL, { schema });
  await migrate(store, to, schema);
  return {
    store,
    close: async () => {
      await store.close();
      await sql.raw(`drop schema ${schema} cascade`).execute(admin.db);
      await admin.close();
    },
  };
}

async function migrate(store, to, schema) {
  const migrator = new Migrator({
    db: store.db,
    provider: { getMigrations: async () => migrations },
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error } = await migrator.migrateTo(to);
  if (error) throw error;
}

/** The events of one batch: `BATCH` of them over `accounts` accounts (seeded). */
function batchOf(rng, accounts, n) {
  return Array.from({ length: BATCH }, (_, i) => ({
    account: `acct-${rng.int(accounts)}`,
    movement_id: `m-${n}-${i}`,
    document: DOCUMENT,
  }));
}

/** The release before: the lock (PostgreSQL), then the events inserted. */
async function recordAsBefore(trx, events, postgres) {
  if (postgres) await sql`select pg_advisory_xact_lock(hashtext('movement_events_' || current_schema()))`.execute(trx);
  const at = new Date().toISOString();
  const rows = events.map((e) => ({ ...e, created_at: at }));
  if (postgres) {
    await sql`insert into movement_events (account, movement_id, document, created_at)
      select account, movement_id, document, created_at
      from json_populate_recordset(null::movement_events, ${JSON.stringify(rows)}::json)`.execute(trx);
  } else {
    for (let i = 0; i < rows.length; i += 2000)
      await trx
        .insertInto('movement_events')
        .values(rows.slice(i, i + 2000))
        .execute();
  }
}

async function measure(kind, accounts) {
  const names = Object.keys(migrations).sort();
  const before = await storeAt(kind, names.filter((name) => name < '0009_account_event_ids').at(-1));
  const now = await storeAt(kind, names.at(-1));
  const postgres = kind === 'postgres';
  const rng = createRng(`event-ids/${kind}/${accounts}`);
  const times = { before: [], now: [] };
  try {
    for (let n = 0; n < BATCHES; n++) {
      const events = batchOf(rng, accounts, n);
      // In turn, each side first every other batch: neither gets the warmer turn.
      const sides = n % 2 ? ['now', 'before'] : ['before', 'now'];
      for (const side of sides) {
        const { store } = side === 'now' ? now : before;
        const started = process.hrtime.bigint();
        await store.db
          .transaction()
          .execute((trx) =>
            side === 'now' ? recordMovementEvents(trx, events) : recordAsBefore(trx, events, postgres),
          );
        times[side].push(Number(process.hrtime.bigint() - started) / 1000 / BATCH);
      }
    }
  } finally {
    await before.close();
    await now.close();
  }
  // The first batches warm the caches and the plans: the medians are over the second half.
  const settled = (list) => median(list.slice(Math.floor(list.length / 2)));
  const row = { kind, accounts, before: settled(times.before), now: settled(times.now) };
  console.log(
    `${kind.padEnd(8)} ${String(accounts).padStart(6)} accounts: ${row.before.toFixed(1)} µs/event before, ` +
      `${row.now.toFixed(1)} µs/event with each account's ids (+${(row.now - row.before).toFixed(1)} µs, ` +
      `${((row.now / row.before - 1) * 100).toFixed(0)}%)`,
  );
  return row;
}

console.log(
  `${BATCHES} batches of ${BATCH} events each side, alternating; medians of the second half; load ${os.loadavg()[0].toFixed(2)}`,
);
for (const kind of options['skip-pg'] ? ['sqlite'] : ['sqlite', 'postgres']) {
  for (const accounts of [10_000, 10]) await measure(kind, accounts);
}
