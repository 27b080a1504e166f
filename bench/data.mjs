#!/usr/bin/env node
/**
 * The benchmark's data set, generated from a deterministic seed straight into a migrated gateway database:
 * 10,000 ledger accounts, movements and trades (1 million each by default, 100k with --quick).
 *
 *   node bench/data.mjs <DATABASE_URL> [--quick] [--seed TEXT]
 *
 * The schema must exist first (`node server/dist/cli.js migrate` with the same DATABASE_URL, and the
 * catalogue loaded): this script only inserts rows, so tables and indexes are exactly the server's.
 * SQLite: better-sqlite3 prepared statements, one transaction per 10k rows. PostgreSQL: multi-row inserts
 * (`INSERT … SELECT * FROM unnest($1::text[], …)`, 5,000 rows a statement), then VACUUM ANALYZE.
 * Prints a JSON summary on stdout (the signed-in account's seed and address, the trades address, counts).
 */
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { addressOfPublicKey, signerFromSeed } from '@gateway/client';
import { addressFromPublicKey } from '@gateway/ledger';
import { movementDocument, sqlitePath, tradeDocument } from '@gateway/server';
import bs58 from 'bs58';
import { BASE58_ALPHABET, createRng } from './lib/common.mjs';

const require = createRequire(import.meta.url);

export const DEFAULT_SEED = 'exchange-gateway-bench-v1';
export const SIZES = {
  full: { accounts: 10_000, movements: 1_000_000, trades: 1_000_000, hotMovements: 1_000, hotTrades: 5_000 },
  quick: { accounts: 10_000, movements: 100_000, trades: 100_000, hotMovements: 300, hotTrades: 2_000 },
};

/** The seed phrase of the signed-in account (account 0 of the data set). */
export const signedInSeedOf = (seed) => `${seed} signed-in account`;

/** A movement row's columns, in the order the data set's rows hold them. */
export const MOVEMENT_COLUMNS = [
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
];
const TRADE_COLUMNS = [
  'address',
  'id',
  'amount_currency_id',
  'price_currency_id',
  'type',
  'timestamp',
  'amount',
  'price',
];

// Currency, platform, decimals and withdrawal fee of the demo catalogue (server/demo/catalogue.yaml).
const ROUTES = [
  ['BNB', 'BSC', 8, '0.001'],
  ['BTC', 'BTC', 8, '0.0005'],
  ['ETH', 'ETH', 8, '0.005'],
  ['USDT', 'ETH', 6, '5'],
  ['USDT', 'BSC', 6, '1'],
  ['WAVES', 'ETH', 8, '0.5'],
  ['USDC', 'ETH', 6, '5'],
];
const PAIRS = [
  ['WAVES', 'USDT', 15],
  ['WAVES', 'USDT', 15],
  ['ETH', 'USDT', 2500],
  ['BTC', 'USDT', 40000],
  ['WAVES', 'BTC', 0.0004],
  ['ETH', 'WAVES', 160],
];
const BECH32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const START = Date.UTC(2021, 0, 1);
const SPAN = Date.UTC(2024, 0, 1) - START;

/** Canonical decimal text of mantissa / 10^decimals (no trailing zeros). */
function decimal(mantissa, decimals) {
  const scale = 10 ** decimals;
  const whole = Math.floor(mantissa / scale);
  const fraction = String(mantissa % scale)
    .padStart(decimals, '0')
    .replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : String(whole);
}

function uuid(rng) {
  const h = rng.hex(32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[rng.int(4)]}${h.slice(17, 20)}-${h.slice(20)}`;
}

/** The 10,000 accounts: 0 is the signed-in account, 1 the trades account, the rest random keys. */
export function makeAccounts(seed, count) {
  const rng = createRng(`${seed}/accounts`);
  const signer = signerFromSeed(signedInSeedOf(seed));
  const signedIn = addressFromPublicKey(bs58.decode(signer.publicKey), 'W');
  if (signedIn !== addressOfPublicKey(signer.publicKey, 'W'))
    throw new Error('server and client disagree on addresses');
  const accounts = [signedIn];
  for (let i = 1; i < count; i++) accounts.push(addressFromPublicKey(rng.bytes(32), 'W'));
  return { accounts, signedInSeed: signedInSeedOf(seed), signedIn, tradesAddress: accounts[1] };
}

/** Movements in time order; every `stride`-th goes to the signed-in account until it has `hot` of them. */
export function* movementRows(seed, accounts, total, hot) {
  const rng = createRng(`${seed}/movements`);
  const stride = Math.floor(total / hot);
  let hotDone = 0;
  for (let i = 0; i < total; i++) {
    const toHot = i % stride === 0 && hotDone < hot;
    if (toHot) hotDone++;
    const account = toHot ? accounts[0] : accounts[1 + rng.int(accounts.length - 1)];
    const [currency, platform, decimals, withdrawalFee] = rng.pick(ROUTES);
    const deposit = rng.float() < 0.6;
    const roll = rng.float();
    const status =
      roll < 0.85 ? 'confirmed' : roll < 0.92 ? 'in_progress' : roll < 0.97 ? 'pending_approval' : 'rejected';
    const created = START + Math.floor((i * SPAN) / total) + rng.int(1000);
    const updated = created + rng.int(2 * 86_400_000);
    const external =
      platform === 'BTC'
        ? { transaction_id: rng.hex(64), platform_id: 'BTC' }
        : { transaction_id: `0x${rng.hex(64)}`, platform_id: platform };
    const ledger = { transaction_id: rng.chars(BASE58_ALPHABET, 44), platform_id: 'WAVES' };
    const transactions =
      status === 'confirmed' ? (deposit ? [external, ledger] : [ledger, external]) : [deposit ? external : ledger];
    const recipient = deposit ? account : platform === 'BTC' ? `bc1q${rng.chars(BECH32, 38)}` : `0x${rng.hex(40)}`;
    yield [
      uuid(rng),
      account,
      deposit ? 'deposit' : 'withdrawal',
      status,
      deposit ? platform : 'WAVES',
      deposit ? 'WAVES' : platform,
      currency,
      decimal(1 + rng.int(10 ** decimals * 1000), decimals),
      deposit ? '0' : withdrawalFee,
      new Date(created).toISOString(),
      new Date(updated).toISOString(),
      recipient,
      JSON.stringify(transactions),
    ];
  }
}

/** Trades in time order; every `stride`-th is a WAVES/USDT trade of the trades account until it has `hot`. */
function* tradeRows(seed, accounts, total, hot) {
  const rng = createRng(`${seed}/trades`);
  const stride = Math.floor(total / hot);
  let hotDone = 0;
  for (let i = 0; i < total; i++) {
    const toHot = i % stride === 0 && hotDone < hot;
    if (toHot) hotDone++;
    const address = toHot ? accounts[1] : accounts[rng.int(accounts.length)];
    const [amountCurrency, priceCurrency, price] = toHot ? PAIRS[0] : rng.pick(PAIRS);
    const timestamp = START + Math.floor((i * SPAN) / total) + rng.int(1000);
    yield [
      address,
      rng.chars(BASE58_ALPHABET, 44),
      amountCurrency,
      priceCurrency,
      rng.float() < 0.5 ? 'buy' : 'sell',
      new Date(timestamp).toISOString(),
      decimal(1 + rng.int(10 ** 8 * 500), 8),
      decimal(Math.max(1, Math.round(price * (0.7 + 0.6 * rng.float()) * 1e8)), 8),
    ];
  }
}

/**
 * The data set's movements as feed records (the spec's MovementRecord, one NDJSON line each): the same
 * movements, in the same order, as the data set stores (`count` of them; the import scenarios' file).
 */
export function* movementLines(seed, count, accounts = makeAccounts(seed, SIZES.full.accounts).accounts) {
  const hot = count >= SIZES.full.movements ? SIZES.full.hotMovements : SIZES.quick.hotMovements;
  yield* feedLines(movementRows(seed, accounts, count, hot));
}

/** Movement rows (movementRows) as NDJSON lines of MovementRecord. */
export function* feedLines(rows) {
  for (const row of rows) {
    const record = Object.fromEntries(MOVEMENT_COLUMNS.map((column, i) => [column, row[i]]));
    record.transactions = JSON.parse(record.transactions);
    yield JSON.stringify(record);
  }
}

/** Each row with its document, rendered by the server's own function (store/documents.ts). */
function* withDocuments(rows, columns, render) {
  for (const row of rows) yield [...row, render(Object.fromEntries(columns.map((column, i) => [column, row[i]])))];
}

const log = (text) => process.stderr.write(`  [data] ${text}\n`);

function progress(table, done, total, started) {
  if (done % 200_000 === 0 || done === total) {
    log(
      `${table}: ${done.toLocaleString('en')} / ${total.toLocaleString('en')} rows (${((Date.now() - started) / 1000).toFixed(1)} s)`,
    );
  }
}

function fillSqlite(url, tables) {
  const Database = require('better-sqlite3');
  const db = new Database(sqlitePath(url));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -262144');
  try {
    for (const { table, columns, rows, total } of tables) {
      const started = Date.now();
      const insert = db.prepare(
        `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
      );
      const write = db.transaction((batch) => {
        for (const row of batch) insert.run(row);
      });
      let batch = [];
      let done = 0;
      for (const row of rows) {
        batch.push(row);
        if (batch.length === 10_000) {
          write(batch);
          done += batch.length;
          batch = [];
          progress(table, done, total, started);
        }
      }
      if (batch.length > 0) {
        write(batch);
        done += batch.length;
        progress(table, done, total, started);
      }
    }
    db.pragma('wal_checkpoint(TRUNCATE)');
    const plans = {
      movements: db
        .prepare(
          `EXPLAIN QUERY PLAN SELECT document FROM movements WHERE account = ? ORDER BY created_at DESC, id DESC LIMIT 101`,
        )
        .all('x')
        .map((r) => r.detail),
      trades: db
        .prepare(
          `EXPLAIN QUERY PLAN SELECT document FROM trades WHERE address = ? AND amount_currency_id = ? AND price_currency_id = ? ORDER BY timestamp DESC, id DESC LIMIT 1001`,
        )
        .all('x', 'WAVES', 'USDT')
        .map((r) => r.detail),
    };
    return plans;
  } finally {
    db.close();
  }
}

async function fillPostgres(url, tables) {
  const pg = require('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('SET synchronous_commit = off');
    for (const { table, columns, rows, total } of tables) {
      const started = Date.now();
      const sql = `INSERT INTO ${table} (${columns.join(', ')}) SELECT * FROM unnest(${columns.map((_, i) => `$${i + 1}::text[]`).join(', ')})`;
      const BATCH = 5_000;
      const inFlight = [];
      let arrays = columns.map(() => []);
      let done = 0;
      const flush = async () => {
        const count = arrays[0].length;
        if (count === 0) return;
        const values = arrays;
        arrays = columns.map(() => []);
        // Generate the next batch while PostgreSQL writes this one; at most two statements in flight.
        inFlight.push(
          client.query(sql, values).then(() => {
            done += count;
            progress(table, done, total, started);
          }),
        );
        if (inFlight.length >= 2) await inFlight.shift();
      };
      for (const row of rows) {
        for (let c = 0; c < row.length; c++) arrays[c].push(row[c]);
        if (arrays[0].length === BATCH) await flush();
      }
      await flush();
      await Promise.all(inFlight);
    }
    // The rows were committed asynchronously: until a synchronous commit flushes the WAL, VACUUM cannot mark
    // their pages all-visible, and without that PostgreSQL plans no index-only scan (a trades page would
    // visit 1,000 heap rows). Imports through `gateway trades import` commit synchronously.
    await client.query('SET synchronous_commit = on');
    await client.query('SELECT pg_current_xact_id()');
    for (const { table } of tables) await client.query(`VACUUM ANALYZE ${table}`);
    const explain = async (text, params) =>
      (await client.query(`EXPLAIN ${text}`, params)).rows.map((r) => r['QUERY PLAN']).slice(0, 3);
    return {
      movements: await explain(
        'SELECT document FROM movements WHERE account = $1 ORDER BY created_at DESC, id DESC LIMIT 101',
        ['x'],
      ),
      trades: await explain(
        'SELECT document FROM trades WHERE address = $1 AND amount_currency_id = $2 AND price_currency_id = $3 ORDER BY timestamp DESC, id DESC LIMIT 1001',
        ['x', 'WAVES', 'USDT'],
      ),
    };
  } finally {
    await client.end();
  }
}

/** Fills a migrated database (with the catalogue loaded) with the data set; returns its summary. */
export async function generateDataset(url, { quick = false, seed = DEFAULT_SEED } = {}) {
  const size = quick ? SIZES.quick : SIZES.full;
  const started = Date.now();
  const { accounts, signedInSeed, signedIn, tradesAddress } = makeAccounts(seed, size.accounts);
  log(`${accounts.length.toLocaleString('en')} accounts in ${Date.now() - started} ms`);
  const tables = [
    {
      table: 'movements',
      columns: [...MOVEMENT_COLUMNS, 'document'],
      rows: withDocuments(
        movementRows(seed, accounts, size.movements, size.hotMovements),
        MOVEMENT_COLUMNS,
        movementDocument,
      ),
      total: size.movements,
    },
    {
      table: 'trades',
      columns: [...TRADE_COLUMNS, 'document'],
      rows: withDocuments(tradeRows(seed, accounts, size.trades, size.hotTrades), TRADE_COLUMNS, tradeDocument),
      total: size.trades,
    },
  ];
  const plans = /^postgres(ql)?:\/\//i.test(url) ? await fillPostgres(url, tables) : fillSqlite(url, tables);
  return {
    seed,
    accounts: accounts.length,
    movements: size.movements,
    trades: size.trades,
    signedInSeed,
    signedInAddress: signedIn,
    signedInMovements: size.hotMovements,
    tradesAddress,
    tradesAddressWavesUsdt: size.hotTrades,
    plans,
    seconds: Math.round((Date.now() - started) / 100) / 10,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { quick: { type: 'boolean', default: false }, seed: { type: 'string', default: DEFAULT_SEED } },
  });
  const [url] = positionals;
  if (!url) {
    console.error('usage: node bench/data.mjs <DATABASE_URL> [--quick] [--seed TEXT]');
    process.exit(2);
  }
  generateDataset(url, { quick: values.quick, seed: values.seed }).then(
    (summary) => console.log(JSON.stringify(summary)),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
