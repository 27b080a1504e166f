/**
 * Opens the store: SQLite (better-sqlite3, a file, the embedded default) or PostgreSQL when the URL is a
 * postgres URL. The same Kysely queries and migrations serve both.
 */
import { mkdirSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { postgresDriver } from '../lib/drivers.js';
import { StoreSchemaDialect } from './introspection.js';
import { type Listening, listenPostgres } from './listener.js';
import { migrateToLatest, migrationState } from './migrator.js';
import { refreshDocuments } from './refresh-documents.js';
import type { Database, DialectName, Store } from './schema.js';
import { poolerRefusal, statementCache, statementNames } from './statements.js';

export type { DialectName, Store } from './schema.js';

/** What the SQLite write-ahead log is cut back to when a checkpoint empties it. */
export const WAL_SIZE_LIMIT_BYTES = 16 * 1024 * 1024;

export const isPostgresUrl = (url: string) => /^postgres(ql)?:\/\//i.test(url);

/** The file of a `sqlite:` / `file:` URL or a plain path; `:memory:` for an in-memory database. */
export function sqlitePath(url: string): string {
  const bare = url.replace(/^(sqlite|file):(\/\/)?/i, '');
  return bare === ':memory:' ? bare : path.resolve(bare);
}

export interface StoreOptions {
  poolSize?: number;
  /** PostgreSQL: the schema to work in (tests), set at connect as the search path. */
  schema?: string;
  /**
   * PostgreSQL: `transaction` when `url` is a transaction-mode pooler: no statement is prepared by name and
   * LISTEN goes to `directUrl` (none without it).
   */
  poolMode?: 'session' | 'transaction';
  /** PostgreSQL: a direct connection to the same database, for LISTEN (default: `url` in session mode). */
  directUrl?: string;
  /** Told, once, what the store found out about its connection that the operator should know. */
  notice?: (message: string) => void;
}

export function openStore(url: string, options: StoreOptions = {}): Store {
  if (isPostgresUrl(url)) {
    if (options.schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(options.schema))
      throw new Error('bad schema name');
    const pool = new (postgresDriver().Pool)({
      connectionString: url,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: 5000,
      // A query that hangs fails instead of holding a connection (and a request) forever.
      statement_timeout: 10_000,
      ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
    });
    // A client losing its connection (database restart) must not crash the process: idle clients report
    // through the pool, and a client in use through its own 'error' event (its query fails as well, and
    // that failure is what the request sees).
    pool.on('error', () => {});
    pool.on('connect', (client) => client.on('error', () => {}));
    const db = new Kysely<Database>({ dialect: new StoreSchemaDialect({ pool }) });
    const unnamed = () => undefined;
    let statementName: (source: string) => string | undefined =
      options.poolMode === 'transaction' ? unnamed : statementNames();
    const listenUrl = options.directUrl || (options.poolMode === 'transaction' ? undefined : url);
    return storeOf(
      db,
      'postgres',
      async (query) => {
        const run = (name: string | undefined) =>
          pool.query({ text: query.sql, values: query.parameters as unknown[], rowMode: 'array', name });
        const name = statementName(query.sql);
        let result: import('pg').QueryResult;
        try {
          result = await run(name);
        } catch (error) {
          if (name === undefined || !poolerRefusal(error)) throw error;
          // A transaction pooler in front, configured as a direct connection: unnamed from now on.
          if (statementName !== unnamed) {
            statementName = unnamed;
            options.notice?.(
              `DATABASE_URL refused a named prepared statement (${(error as Error).message}): it is a transaction pooler; this instance goes on with unnamed statements (set DATABASE_POOL_MODE=transaction and DATABASE_DIRECT_URL, docs/deployment.md)`,
            );
          }
          result = await run(undefined);
        }
        return (result.rows as unknown[][]).map((row) => row[0]);
      },
      async (statements) => {
        const client = await pool.connect();
        let failure: unknown;
        try {
          await client.query('begin');
          for (const statement of statements) {
            const result = await client.query(statement.sql, statement.parameters as unknown[]);
            if (!result.rowCount) {
              await client.query('rollback');
              return false;
            }
          }
          await client.query('commit');
          return true;
        } catch (error) {
          failure = error;
          await client.query('rollback').catch(() => {});
          throw error;
        } finally {
          // A connection that failed mid-transaction is not given back to the pool.
          client.release(failure instanceof Error && !('severity' in failure) ? failure : undefined);
        }
      },
      () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
      (topic, on) =>
        listenUrl === undefined
          ? // Behind a transaction pooler with no direct connection: nobody listens (server.ts says so at start).
            { ready: Promise.resolve(), up: false, close: async () => {} }
          : listenPostgres(
              {
                connectionString: listenUrl,
                connectionTimeoutMillis: 5000,
                ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
              },
              topic,
              on,
            ),
      options.schema,
    );
  }
  const file = sqlitePath(url);
  if (file !== ':memory:') mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = new SqliteDatabase(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // The write-ahead log is cut back to this size each time a checkpoint empties it (every ~4 MiB of writes):
  // without it the file stays at its high-water mark while the server runs (259 MB after one large delete).
  sqlite.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
  // Kysely's SQLite driver prepares every statement again on each query; a prepared statement can be reused
  // (one connection, one query at a time), so keep the most recent ones.
  const prepared = statementCache((source) => sqlite.prepare(source));
  const plucking = statementCache((source) => sqlite.prepare(source).pluck());
  // SQLite ends a transaction itself when a write fails for a full disk (or memory); the `rollback` Kysely
  // then sends would fail ("cannot rollback - no transaction is active") and hide the write's own error.
  const nothingToRollBack = { reader: false, run: () => ({ changes: 0, lastInsertRowid: 0 }) };
  const driverDatabase = Object.assign(Object.create(sqlite) as SqliteDatabase.Database, {
    prepare: (source: string) =>
      source === 'rollback' && !sqlite.inTransaction
        ? (nothingToRollBack as unknown as SqliteDatabase.Statement)
        : prepared(source),
    close: () => sqlite.close(),
  });
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: driverDatabase }) });
  const store = storeOf(
    db,
    'sqlite',
    // Through Kysely's connection, so that it waits its turn like every other query (one connection).
    (query) =>
      db.connection().execute(async () => plucking(query.sql).all(...(query.parameters as unknown[])) as unknown[]),
    (statements) =>
      db.connection().execute(async () => {
        const run = sqlite.transaction(() => {
          for (const statement of statements) {
            if (prepared(statement.sql).run(...(statement.parameters as unknown[])).changes === 0) throw noChange;
          }
        });
        try {
          run.immediate();
          return true;
        } catch (error) {
          if (error === noChange) return false;
          throw error;
        }
      }),
    () => ({ total: 1, idle: 1, waiting: 0 }),
    (_topic, on) => ({ ready: on.connected().catch(() => {}), up: true, close: async () => {} }),
  );
  if (file !== ':memory:') {
    const folder = path.dirname(file);
    store.freeBytes = async () => {
      const { bavail, bsize } = await statfs(folder);
      return bavail * bsize;
    };
  }
  return store;
}

/** Thrown inside a SQLite transaction to roll it back when a statement changed nothing. */
const noChange = new Error('a statement changed no row');

function storeOf(
  db: Kysely<Database>,
  dialect: DialectName,
  firstColumn: Store['firstColumn'],
  allOrNothing: Store['allOrNothing'],
  poolState: Store['poolState'],
  listen: Store['listen'],
  schema?: string,
): Store {
  const unanswered = async () => {
    try {
      await db.selectNoFrom((eb) => eb.val(1).as('one')).execute();
      return null;
    } catch (error) {
      return (error instanceof Error && error.message.split('\n')[0]) || String(error);
    }
  };
  const listenings: { topic: string; listening: Listening }[] = [];
  return {
    db,
    dialect,
    firstColumn,
    allOrNothing,
    poolState,
    listen(topic, on) {
      const listening = listen(topic, on);
      const entry = { topic, listening };
      listenings.push(entry);
      return {
        ready: listening.ready,
        get up() {
          return listening.up;
        },
        async close() {
          listenings.splice(listenings.indexOf(entry), 1);
          await listening.close();
        },
      };
    },
    listenState() {
      const state: Record<string, boolean> = {};
      for (const { topic, listening } of listenings) state[topic] = (state[topic] ?? true) && listening.up;
      return state;
    },
    async migrate() {
      // A database ahead of this release is refused before anything is rendered: the newer release's
      // rendering is the one its rows are in.
      const applied = await migrateToLatest(db as Kysely<unknown>, schema);
      const rendered = await refreshDocuments(db);
      return rendered > 0 ? [...applied, `documents of ${rendered} rows rendered`] : applied;
    },
    migrationState: () => migrationState(db as Kysely<unknown>, schema),
    ping: async () => (await unanswered()) === null,
    unanswered,
    freeBytes: async () => null,
    close: () => db.destroy(),
  };
}
