/**
 * The soak's parts (bench/soak.mjs): a simulated clock, a store of its own (an SQLite file, or a PostgreSQL
 * database created and dropped), the sizes of its tables, and the writes made the way the server makes them,
 * through the server's own functions (server/dist): a password grant's sign-in (`startTokenFamily`, with what
 * `issueForPassword` puts in it), a refresh (`issueForRefreshToken`: the sign-in's read and its compare-and-set),
 * movements with their events (`upsertMovements`), the housekeeping (`runTasks` with `housekeepingTasks`).
 */
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { addressFromPublicKey } from '@gateway/ledger';
import bs58 from 'bs58';
import { CompiledQuery } from 'kysely';
import pg from 'pg';
import { MOVEMENT_COLUMNS, movementRows } from '../data.mjs';
import { ROOT } from './common.mjs';

/* ------------------------------------------------------------------ the simulated clock */

/**
 * `Date` as the server's code sees it in this process: `new Date()` and `Date.now()` answer the simulated
 * time (the events' `created_at` is taken from `new Date()` inside `recordMovementEvents`, which has no clock
 * parameter). Timings use `performance.now()`, which this leaves alone.
 */
const RealDate = Date;
let simulatedMs = RealDate.now();
class SimulatedDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(simulatedMs);
    else super(...args);
  }
  static now() {
    return simulatedMs;
  }
}
globalThis.Date = SimulatedDate;

export const clock = {
  set(ms) {
    simulatedMs = ms;
  },
  get ms() {
    return simulatedMs;
  },
  /** The real time (ms), for file names and the report. */
  real: () => RealDate.now(),
  realIso: () => new RealDate().toISOString(),
};

/* ------------------------------------------------------------------ the server's functions */

const dist = (file) => import(pathToFileURL(path.join(ROOT, 'server/dist', file)).href);
export const server = {
  ...(await dist('store/store.js')),
  ...(await dist('store/token.js')),
  ...(await dist('store/movements.js')),
  ...(await dist('store/events.js')),
  ...(await dist('store/housekeeping.js')),
  ...(await dist('operator/housekeeper.js')),
  ...(await dist('domain/refresh-token.js')),
  ...(await dist('domain/refresh-grant.js')),
  ...(await dist('domain/token.js')),
  ...(await dist('domain/revocations.js')),
  ...(await dist('server.js')),
  ...(await dist('config.js')),
};

export const CLIENT_ID = 'waves.exchange';
const CHAIN_ID = 'W';
const iso = (seconds) => new Date(seconds * 1000).toISOString();

/** The token settings of a gateway (services.ts), with `refreshTokenTtl` as given. */
export function tokenSettings(refreshTokenTtl) {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    chainId: CHAIN_ID,
    clientIds: [CLIENT_ID, 'wx.network'],
    refreshTokenTtl,
    refreshReuseGraceSeconds: server.testConfig().refreshReuseGraceSeconds,
    signingKey: privateKey,
    keyId: 'soak',
    verifyingKeys: new Map([['soak', publicKey]]),
    verified: new Map(),
    issued: new Map(),
    revoked: new server.RevokedFamilies(),
  };
}

/** `count` users: a ledger key (base58) and its address, seeded. */
export function makeUsers(rng, count) {
  const users = [];
  for (let i = 0; i < count; i++) {
    const key = rng.bytes(32);
    users.push({ publicKey: bs58.encode(key), address: addressFromPublicKey(key, CHAIN_ID) });
  }
  return users;
}

/**
 * A password grant's write, as `issueForPassword` makes it once the password is verified (domain/token.ts
 * `newSignIn`): the sign-in with its first refresh token, one statement. The password is signed for `lifetime` seconds.
 * Returns the session: its sign-in and its refresh token.
 */
export async function grant(store, settings, user, nowSeconds, lifetime = 86_400) {
  const claims = {
    a: user.address,
    nb: CHAIN_ID,
    user_name: user.publicKey,
    pk: user.publicKey,
    cid: CLIENT_ID,
    lt: lifetime,
  };
  const { signIn, token } = server.newSignIn(settings, claims, nowSeconds);
  if (!(await server.startTokenFamily(store, signIn, iso(nowSeconds + lifetime)))) {
    throw new Error('the grant was refused (signed out)');
  }
  return { familyId: signIn.familyId, token, account: user.address };
}

/** A refresh through the server's refresh grant (domain/refresh-grant.ts): the session gets its new token. */
export async function refresh(store, settings, session, nowSeconds) {
  const { pair } = await server.issueForRefreshToken(
    store,
    settings,
    { scope: 'general', clientId: CLIENT_ID, refreshToken: session.token },
    nowSeconds,
  );
  session.token = pair.refresh_token;
}

/** Runs `work` over `items`, `concurrency` at a time. */
export async function inParallel(items, concurrency, work) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++];
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

/* ------------------------------------------------------------------ movements */

/**
 * New movements of `users` as the feed brings them (the benchmark data set's shapes: bench/data.mjs), created
 * now: `next(count, nowMs)` gives `count` records for `upsertMovements`.
 */
export function movementSource(seed, users, rng) {
  const rows = movementRows(`${seed}/soak`, [users[0].address], 1e12, 0);
  return (count, nowMs) => {
    const at = new Date(nowMs).toISOString();
    const batch = [];
    for (let i = 0; i < count; i++) {
      const row = rows.next().value;
      const record = Object.fromEntries(MOVEMENT_COLUMNS.map((column, k) => [column, row[k]]));
      const account = users[rng.int(users.length)].address;
      if (record.direction === 'deposit') record.recipient_address = account;
      batch.push({ ...record, id: randomUUID(), account, created_at: at, updated_at: at });
    }
    return batch;
  };
}

/* ------------------------------------------------------------------ stores */

export const ADMIN_PG_URL =
  process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The token tables and the event tables, whose bytes the goal bounds; and the movements. */
export const TABLES = {
  tokens: ['token_families', 'refresh_tokens', 'account_sign_outs'],
  events: ['movement_events', 'event_accounts', 'event_retention'],
  movements: ['movements'],
};

/**
 * A store of its own, migrated: `kind` `sqlite` (a file under `dir`) or `pg` (a database `soak_<hex>` on
 * ADMIN_PG_URL's server). `drop()` closes it and removes the file or drops the database.
 */
export async function openSoakStore(kind, dir, label) {
  if (kind === 'sqlite') {
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${label}.db`);
    for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
    const store = server.openStore(`sqlite:${file}`);
    await store.migrate();
    return {
      kind,
      store,
      file,
      async drop() {
        await store.close();
        for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
      },
    };
  }
  const name = `soak_${label.replace(/[^a-z0-9_]/g, '_')}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_PG_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(ADMIN_PG_URL);
  url.pathname = `/${name}`;
  const store = server.openStore(url.toString(), { poolSize: 8 });
  await store.migrate();
  return {
    kind,
    store,
    database: name,
    async drop() {
      await store.close();
      const c = new pg.Client({ connectionString: ADMIN_PG_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export const query = async (store, text, parameters = []) =>
  (await store.db.executeQuery(CompiledQuery.raw(text, parameters))).rows;

/**
 * Rows and bytes of every table of TABLES (indexes, and on PostgreSQL TOAST and free space in its pages,
 * included): SQLite from `dbstat` (the pages of each table and of its indexes), PostgreSQL from
 * `pg_total_relation_size`. Each table's bytes are also split: `main`, the pages of its rows and index entries
 * (SQLite: all of them; PostgreSQL: the main forks of the table, its TOAST and its indexes), and `maps`,
 * PostgreSQL's free space and visibility maps (forks of at least 3 and 1 pages whatever the table's size,
 * then about 2 bytes per 8 KB page); `relations` gives the main bytes of the table and of each index by name.
 * Also the whole database: SQLite's file, WAL and free pages; PostgreSQL's `pg_database_size`.
 */
export async function sizes(s) {
  const names = Object.values(TABLES).flat();
  const tables = {};
  for (const table of names) {
    const [{ n }] = await query(s.store, `select count(*) as n from ${table}`);
    tables[table] = { rows: Number(n), bytes: 0, main: 0, maps: 0, relations: {} };
  }
  let database;
  if (s.kind === 'sqlite') {
    const owners = new Map(
      (await query(s.store, "select name, tbl_name from sqlite_master where type in ('table', 'index')")).map((r) => [
        r.name,
        r.tbl_name,
      ]),
    );
    for (const { name, bytes } of await query(s.store, 'select name, sum(pgsize) as bytes from dbstat group by name')) {
      const table = owners.get(name) ?? name;
      if (!tables[table]) continue;
      tables[table].bytes += Number(bytes);
      tables[table].main += Number(bytes);
      tables[table].relations[name] = Number(bytes);
    }
    const [{ page_size: pageSize }] = await query(s.store, 'pragma page_size');
    const [{ freelist_count: free }] = await query(s.store, 'pragma freelist_count');
    const fileBytes = (suffix) => {
      try {
        return statSync(s.file + suffix).size;
      } catch {
        return 0;
      }
    };
    database = { fileBytes: fileBytes(''), walBytes: fileBytes('-wal'), freeBytes: Number(free) * Number(pageSize) };
  } else {
    const rows = await query(
      s.store,
      `select c.relname as name, pg_total_relation_size(c.oid) as bytes, coalesce(s.n_dead_tup, 0) as dead
         from pg_class c left join pg_stat_user_tables s on s.relid = c.oid
        where c.relname = any($1) and c.relkind = 'r' and c.relnamespace = 'public'::regnamespace`,
      [names],
    );
    for (const r of rows) {
      tables[r.name].bytes = Number(r.bytes);
      tables[r.name].deadRows = Number(r.dead);
    }
    // Each relation of the tables: the table, its TOAST table and their indexes.
    const relations = await query(
      s.store,
      `select t.relname as "table", r.relname as name, pg_relation_size(r.oid, 'main') as main,
              pg_relation_size(r.oid, 'fsm') + pg_relation_size(r.oid, 'vm') as maps
         from pg_class t
         join pg_class r on r.oid = t.oid or r.oid = t.reltoastrelid
              or r.oid in (select indexrelid from pg_index where indrelid in (t.oid, t.reltoastrelid))
        where t.relname = any($1) and t.relkind = 'r' and t.relnamespace = 'public'::regnamespace`,
      [names],
    );
    for (const r of relations) {
      const table = tables[r.table];
      table.main += Number(r.main);
      table.maps += Number(r.maps);
      if (!r.name.startsWith('pg_toast')) table.relations[r.name] = Number(r.main);
    }
    const [{ bytes }] = await query(s.store, 'select pg_database_size(current_database()) as bytes');
    database = { bytes: Number(bytes) };
  }
  const group = (list) => ({
    rows: list.reduce((sum, t) => sum + tables[t].rows, 0),
    bytes: list.reduce((sum, t) => sum + tables[t].bytes, 0),
    main: list.reduce((sum, t) => sum + tables[t].main, 0),
    maps: list.reduce((sum, t) => sum + tables[t].maps, 0),
  });
  return {
    tokens: group(TABLES.tokens),
    events: group(TABLES.events),
    movements: group(TABLES.movements),
    tables,
    database,
  };
}

/**
 * PostgreSQL's autovacuum, by its own rule applied at the simulated time: a table is vacuumed (and analysed)
 * once its updated and deleted rows since its last vacuum pass its threshold plus its scale factor of its
 * rows (the defaults, 50 and 20%, or the table's own `autovacuum_vacuum_threshold` and
 * `autovacuum_vacuum_scale_factor`: migration 0012). In real time autovacuum looks every minute
 * (autovacuum_naptime), some 1,400 times a simulated day that here lasts seconds; the daemon may run as well.
 * SQLite reuses freed pages by itself: nothing to do.
 */
export function autovacuum(s) {
  const changed = new Map();
  let rules;
  const ruleOf = async (table) => {
    rules ??= new Map(
      (
        await query(s.store, "select relname, reloptions from pg_class where relkind = 'r' and reloptions is not null")
      ).map((row) => [row.relname, Object.fromEntries(row.reloptions.map((option) => option.split('=')))]),
    );
    const options = rules.get(table) ?? {};
    return {
      threshold: Number(options.autovacuum_vacuum_threshold ?? 50),
      scale: Number(options.autovacuum_vacuum_scale_factor ?? 0.2),
    };
  };
  return {
    changed(table, n) {
      changed.set(table, (changed.get(table) ?? 0) + n);
    },
    async run(liveRows) {
      let runs = 0;
      if (s.kind !== 'pg') return runs;
      for (const [table, n] of changed) {
        const { threshold, scale } = await ruleOf(table);
        if (n <= threshold + scale * (liveRows(table) ?? 0)) continue;
        await query(s.store, `vacuum (analyze) ${table}`);
        changed.set(table, 0);
        runs += 1;
      }
      return runs;
    },
  };
}
