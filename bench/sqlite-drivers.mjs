#!/usr/bin/env node
/**
 * better-sqlite3 beside node:sqlite on the work the embedded store does most: the import floor (prepared
 * upserts of movement rows, 5,000 to a transaction) and a page read (100 documents by a keyset over the
 * movements index, first column only). Same schema, same rows, same statements; rounds alternate between
 * the drivers and the medians are printed. Run on the pinned Node: `node bench/sqlite-drivers.mjs
 * [--rows N] [--rounds N]` (figures in bench/README.md, "SQLite drivers").
 */
// On the workspace's pinned Node, whatever Node started it (before any other import is evaluated).
import './lib/pinned.mjs';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const require = createRequire(new URL('../server/package.json', import.meta.url));
const BetterSqlite = require('better-sqlite3');
const { DatabaseSync } = await import('node:sqlite');

const { values } = parseArgs({
  options: { rows: { type: 'string', default: '200000' }, rounds: { type: 'string', default: '5' } },
});
const ROWS = Number(values.rows);
const ROUNDS = Number(values.rounds);
const PAGES = 20_000;
const BATCH = 5000;
const ACCOUNTS = 200;

const SCHEMA = `
  create table movements (id text primary key, account text not null, created_at text not null,
    status text not null, document text not null);
  create index movements_page on movements (account, created_at desc, id desc);`;
const UPSERT = `insert into movements (id, account, created_at, status, document) values (?, ?, ?, ?, ?)
  on conflict (id) do update set status = excluded.status, document = excluded.document`;
const PAGE = `select document from movements where account = ? and (created_at, id) < (?, ?)
  order by created_at desc, id desc limit 100`;

const row = (i) => {
  const id = `m-${String(i).padStart(9, '0')}`;
  const account = `3P${String(i % ACCOUNTS).padStart(33, 'x')}`;
  const createdAt = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
  const document = JSON.stringify({
    id,
    account,
    direction: 'deposit',
    status: 'confirmed',
    amount: '0.0128',
    created_at: createdAt,
    currency_id: 'BTC',
    transactions: [{ transaction_id: id.repeat(4), platform_id: 'BTC' }],
  });
  return [id, account, createdAt, 'confirmed', document];
};
const rows = Array.from({ length: ROWS }, (_, i) => row(i));

/** The two drivers behind one small interface: open, run a statement, a transaction, first columns. */
const DRIVERS = {
  'better-sqlite3': (file) => {
    const db = new BetterSqlite(file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    return {
      exec: (sql) => db.exec(sql),
      upsert: () => {
        const statement = db.prepare(UPSERT);
        const batch = db.transaction((slice) => {
          for (const r of slice) statement.run(...r);
        });
        return (slice) => batch.immediate(slice);
      },
      page: () => {
        const statement = db.prepare(PAGE).pluck();
        return (args) => statement.all(...args);
      },
      close: () => db.close(),
    };
  },
  'node:sqlite': (file) => {
    const db = new DatabaseSync(file);
    db.exec('pragma journal_mode = WAL; pragma synchronous = NORMAL;');
    return {
      exec: (sql) => db.exec(sql),
      upsert: () => {
        const statement = db.prepare(UPSERT);
        return (slice) => {
          db.exec('begin immediate');
          try {
            for (const r of slice) statement.run(...r);
            db.exec('commit');
          } catch (error) {
            db.exec('rollback');
            throw error;
          }
        };
      },
      page: () => {
        const statement = db.prepare(PAGE);
        statement.setReturnArrays(true);
        return (args) => statement.all(...args).map((r) => r[0]);
      },
      close: () => db.close(),
    };
  },
};

function round(name) {
  const dir = mkdtempSync(path.join(tmpdir(), 'sqlite-drivers-'));
  try {
    const db = DRIVERS[name](path.join(dir, 'bench.db'));
    db.exec(SCHEMA);
    const upsert = db.upsert();
    let started = performance.now();
    for (let i = 0; i < rows.length; i += BATCH) upsert(rows.slice(i, i + BATCH));
    const importRate = rows.length / ((performance.now() - started) / 1000);
    const page = db.page();
    let documents = 0;
    started = performance.now();
    for (let i = 0; i < PAGES; i++) {
      const r = rows[(i * 7919) % rows.length];
      documents += page([r[1], r[2], r[0]]).length;
    }
    const pageRate = PAGES / ((performance.now() - started) / 1000);
    db.close();
    return { importRate, pageRate, documents };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const results = Object.fromEntries(Object.keys(DRIVERS).map((name) => [name, { importRate: [], pageRate: [] }]));
for (let r = 0; r < ROUNDS; r++) {
  const order = r % 2 === 0 ? Object.keys(DRIVERS) : Object.keys(DRIVERS).reverse();
  for (const name of order) {
    const { importRate, pageRate, documents } = round(name);
    results[name].importRate.push(importRate);
    results[name].pageRate.push(pageRate);
    results[name].documents = documents;
  }
}
console.log(
  `Node ${process.versions.node}, SQLite ${new BetterSqlite(':memory:').prepare('select sqlite_version()').pluck().get()} (better-sqlite3) / ${new DatabaseSync(':memory:').prepare('select sqlite_version() as v').get().v} (node:sqlite); ${ROWS} rows, ${PAGES} pages, ${ROUNDS} rounds alternating`,
);
console.log('driver            import rows/s (median)   page reads/s (median)   documents read');
for (const [name, r] of Object.entries(results)) {
  console.log(
    `${name.padEnd(16)}  ${Math.round(median(r.importRate)).toLocaleString('en').padStart(22)}   ${Math.round(median(r.pageRate)).toLocaleString('en').padStart(21)}   ${r.documents}`,
  );
}
const [a, b] = Object.values(results);
console.log(
  `node:sqlite / better-sqlite3: import ${(median(b.importRate) / median(a.importRate)).toFixed(2)}, pages ${(median(b.pageRate) / median(a.pageRate)).toFixed(2)}`,
);
