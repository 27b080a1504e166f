/**
 * Opens the store: SQLite (better-sqlite3, a file, the embedded default) or PostgreSQL when the URL is a
 * postgres URL. The same Kysely queries and migrations serve both.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { migrateToLatest } from './migrations.js';
import type { Database } from './schema.js';

export type DialectName = 'sqlite' | 'postgres';

export interface Store {
  readonly db: Kysely<Database>;
  readonly dialect: DialectName;
  /** Applies pending migrations; returns their names. */
  migrate(): Promise<string[]>;
  /** True when the database answers. */
  ping(): Promise<boolean>;
  /** Connections of the pool by state. */
  poolState(): { total: number; idle: number; waiting: number };
  close(): Promise<void>;
}

const isPostgresUrl = (url: string) => /^postgres(ql)?:\/\//i.test(url);

/** The file of a `sqlite:` / `file:` URL or a plain path; `:memory:` for an in-memory database. */
export function sqlitePath(url: string): string {
  const bare = url.replace(/^(sqlite|file):(\/\/)?/i, '');
  return bare === ':memory:' ? bare : path.resolve(bare);
}

export function openStore(url: string, options: { poolSize?: number; schema?: string } = {}): Store {
  if (isPostgresUrl(url)) {
    if (options.schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(options.schema))
      throw new Error('bad schema name');
    const pool = new pg.Pool({
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
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return storeOf(
      db,
      'postgres',
      () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
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
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  return storeOf(db, 'sqlite', () => ({ total: 1, idle: 1, waiting: 0 }));
}

/**
 * Kysely's SQLite driver prepares every statement again on each query; a prepared statement can be reused
 * (one connection, one query at a time), so keep the most recent ones.
 */
function withStatementCache(sqlite: SqliteDatabase.Database, size = 500): SqliteDatabase.Database {
  const prepared = new Map<string, SqliteDatabase.Statement>();
  const prepare = sqlite.prepare.bind(sqlite);
  return Object.assign(Object.create(sqlite) as SqliteDatabase.Database, {
    prepare(source: string) {
      let statement = prepared.get(source);
      if (!statement) {
        statement = prepare(source);
        if (prepared.size >= size) prepared.delete(prepared.keys().next().value as string);
        prepared.set(source, statement);
      }
      return statement;
    },
    close: () => sqlite.close(),
  });
}

function storeOf(db: Kysely<Database>, dialect: DialectName, poolState: Store['poolState'], schema?: string): Store {
  return {
    db,
    dialect,
    poolState,
    migrate: () => migrateToLatest(db as Kysely<unknown>, schema),
    async ping() {
      try {
        await db.selectNoFrom((eb) => eb.val(1).as('one')).execute();
        return true;
      } catch {
        return false;
      }
    },
    close: () => db.destroy(),
  };
}
