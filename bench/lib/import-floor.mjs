#!/usr/bin/env node
/**
 * The import scenarios' baseline: what the storage itself costs. The same file's movements written into
 * the same fresh, migrated database by the driver alone, with no checks: each line is only JSON.parse'd and
 * rendered as the API serves it, then written with the statements the gateway uses, one transaction a
 * batch: the upsert by id (the same conflict rule) returning the ids written, then (PostgreSQL: after the
 * same advisory lock) each account's event ids drawn (the upsert of its count in event_accounts, returning
 * its last id) and one event per movement written, with its account's id. SQLite through better-sqlite3's prepared statements,
 * one row at a time (its fastest way); PostgreSQL through pg, each batch one JSON parameter.
 *
 * No production code is imported: a gateway import slower than this by more than its checks is slow in its
 * own code; one close to it is bound by the database.
 *
 *   node bench/lib/import-floor.mjs DATABASE_URL FILE BATCH
 */
import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';

const require = createRequire(new URL('../../server/package.json', import.meta.url));
const [url, file, batchText] = process.argv.slice(2);
const batchSize = Number(batchText);
if (!url || !file || !(batchSize > 0)) {
  console.error('usage: node bench/lib/import-floor.mjs DATABASE_URL FILE BATCH');
  process.exit(2);
}

const COLUMNS = [
  'id',
  'account',
  'direction',
  'status',
  'source_platform_id',
  'destination_platform_id',
  'currency_id',
  'amount',
  'fee',
  'created_at',
  'updated_at',
  'recipient_address',
  'transactions',
  'document',
];
const UPDATED = COLUMNS.filter((c) => !['id', 'account', 'created_at'].includes(c));
const CONFLICT = `on conflict (id) do update set ${UPDATED.map((c) => `${c} = excluded.${c}`).join(', ')}
  where movements.account = excluded.account and movements.created_at = excluded.created_at
    and movements.document <> excluded.document
  returning id`;

/** A feed line as a stored row: the movement as served, and its transactions as text. */
function row(line) {
  const r = JSON.parse(line);
  const transactions = r.transactions.map((t) => ({ transaction_id: t.transaction_id, platform_id: t.platform_id }));
  const document = JSON.stringify({
    type: 'gateway_movement',
    id: r.id,
    direction: r.direction,
    status: r.status,
    source_platform_id: r.source_platform_id,
    destination_platform_id: r.destination_platform_id,
    currency_id: r.currency_id,
    amount: Number(r.amount),
    fee: Number(r.fee),
    created_at: r.created_at,
    updated_at: r.updated_at,
    recipient_address: r.recipient_address,
    transactions,
  });
  return { ...r, transactions: JSON.stringify(transactions), document };
}

async function* batches() {
  let batch = [];
  for await (const line of createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity })) {
    if (line.trim() === '') continue;
    batch.push(row(line));
    if (batch.length === batchSize) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

let rows = 0;
if (/^postgres(ql)?:/i.test(url)) {
  const pg = require('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const upsert = `insert into movements (${COLUMNS.join(', ')})
    select ${COLUMNS.join(', ')} from json_populate_recordset(null::movements, $1::json) ${CONFLICT}`;
  const events = `insert into movement_events (account, account_seq, movement_id, document, created_at)
    select account, account_seq, movement_id, document, created_at
    from json_populate_recordset(null::movement_events, $1::json)`;
  const raise = `update event_accounts e set last_id = e.last_id + x.n
    from unnest($1::text[], $2::bigint[]) as x(account, n) where e.account = x.account
    returning e.account, e.last_id`;
  const first = 'insert into event_accounts (account, last_id) select * from unnest($1::text[], $2::bigint[])';
  for await (const batch of batches()) {
    await client.query('begin');
    const written = new Set((await client.query(upsert, [JSON.stringify(batch)])).rows.map((r) => r.id));
    await client.query(`select pg_advisory_xact_lock(hashtext('movement_events_' || current_schema()))`);
    const at = new Date().toISOString();
    const recorded = batch.filter((r) => written.has(r.id));
    const counts = new Map();
    for (const r of recorded) counts.set(r.account, (counts.get(r.account) ?? 0) + 1);
    const next = new Map();
    if (counts.size > 0) {
      for (const r of (await client.query(raise, [[...counts.keys()], [...counts.values()]])).rows) {
        next.set(r.account, Number(r.last_id) - counts.get(r.account) + 1);
      }
      const missing = [...counts.keys()].filter((a) => !next.has(a));
      if (missing.length > 0) {
        await client.query(first, [missing, missing.map((a) => counts.get(a))]);
        for (const a of missing) next.set(a, 1);
      }
    }
    const eventRows = recorded.map((r) => {
      const id = next.get(r.account);
      next.set(r.account, id + 1);
      return { account: r.account, account_seq: id, movement_id: r.id, document: r.document, created_at: at };
    });
    await client.query(events, [JSON.stringify(eventRows)]);
    await client.query('commit');
    rows += batch.length;
  }
  await client.end();
} else {
  const Database = require('better-sqlite3');
  const db = new Database(url.replace(/^(sqlite|file):(\/\/)?/i, ''));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  const upsert = db
    .prepare(
      `insert into movements (${COLUMNS.join(', ')}) values (${COLUMNS.map((c) => `@${c}`).join(', ')}) ${CONFLICT}`,
    )
    .pluck();
  const event = db.prepare(
    'insert into movement_events (account, account_seq, movement_id, document, created_at) values (?, ?, ?, ?, ?)',
  );
  const draw = db
    .prepare(
      `insert into event_accounts (account, last_id, legacy_through) values (?, ?, 0)
      on conflict (account) do update set last_id = last_id + excluded.last_id returning last_id`,
    )
    .pluck();
  const write = db.transaction((batch) => {
    const at = new Date().toISOString();
    const recorded = batch.filter((r) => upsert.get(r) !== undefined);
    const counts = new Map();
    for (const r of recorded) counts.set(r.account, (counts.get(r.account) ?? 0) + 1);
    const next = new Map([...counts].map(([account, n]) => [account, Number(draw.get(account, n)) - n + 1]));
    for (const r of recorded) {
      const id = next.get(r.account);
      next.set(r.account, id + 1);
      event.run(r.account, id, r.id, r.document, at);
    }
  });
  for await (const batch of batches()) {
    write.immediate(batch);
    rows += batch.length;
  }
  db.close();
}
console.log(JSON.stringify({ rows }));
