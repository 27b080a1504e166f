/** A fresh store per test: a temporary SQLite file, or a schema of its own in the test PostgreSQL. */
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openStore, type Store } from '../../src/store/store.js';

/** Set by the global setup (scripts/test-postgres.mjs): the PostgreSQL it found or started. */
export const TEST_POSTGRES_URL = required(process.env.TEST_DATABASE_URL);
export const DATABASES = ['sqlite', 'postgres'] as const;
export type DatabaseKind = (typeof DATABASES)[number];

export interface TestStore {
  kind: DatabaseKind;
  store: Store;
  /** Opens another store on the same database (another "instance"). */
  reopen(): Store;
  close(): Promise<void>;
}

/**
 * `migrate: false` leaves the database empty (for tests of the migrations themselves); `poolSize` (PostgreSQL)
 * is the pool's size, 1 to see one connection's state.
 */
export async function createTestStore(kind: DatabaseKind, { migrate = true, poolSize = 8 } = {}): Promise<TestStore> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(path.join(tmpdir(), 'gateway-store-'));
    const url = `sqlite:${path.join(dir, 'test.db')}`;
    const store = openStore(url);
    if (migrate) await store.migrate();
    const extra: Store[] = [];
    return {
      kind,
      store,
      reopen: () => {
        const s = openStore(url);
        extra.push(s);
        return s;
      },
      close: async () => {
        await Promise.all([store, ...extra].map((s) => s.close()));
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const store = openStore(TEST_POSTGRES_URL, { schema, poolSize });
  if (migrate) await store.migrate();
  const extra: Store[] = [];
  return {
    kind,
    store,
    reopen: () => {
      const s = openStore(TEST_POSTGRES_URL, { schema, poolSize });
      extra.push(s);
      return s;
    },
    close: async () => {
      await Promise.all([store, ...extra].map((s) => s.close()));
      // Dropped at the end of the run (test/support/schema-reaper.ts): a drop now races other files' migrations.
      if (process.env.TEST_SCHEMAS_FILE) {
        appendFileSync(process.env.TEST_SCHEMAS_FILE, `${schema}\n`);
        return;
      }
      const cleanup = new pg.Client({ connectionString: TEST_POSTGRES_URL });
      await cleanup.connect();
      await cleanup.query(`drop schema ${schema} cascade`);
      await cleanup.end();
    },
  };
}

/** A PostgreSQL address where nothing listens (a port just freed on the loopback): a stopped server. */
export async function stoppedPostgresUrl(): Promise<string> {
  const url = new URL(TEST_POSTGRES_URL);
  url.hostname = '127.0.0.1';
  url.port = String(
    await new Promise<number>((resolve, reject) => {
      const probe = net.createServer().on('error', reject);
      probe.listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(port));
      });
    }),
  );
  return url.toString();
}

/** A database other processes (the `gateway` command) reach by URL alone, and its environment for them. */
export interface DatabaseForProcesses {
  env: Record<string, string>;
  store: Store;
  close(): Promise<void>;
}

export async function databaseForProcesses(kind: DatabaseKind, dir: string): Promise<DatabaseForProcesses> {
  if (kind === 'sqlite') {
    const url = `sqlite:${path.join(dir, 'cli.db')}`;
    return { env: { DATABASE_URL: url, DATA_DIR: dir }, store: openStore(url), close: async () => {} };
  }
  // A database of its own, since the CLI connects without a schema option.
  const name = `cli_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = TEST_POSTGRES_URL.replace(/\/[^/]*$/, `/${name}`);
  const store = openStore(url);
  return {
    env: {
      DATABASE_URL: url,
      DATA_DIR: dir,
      TOKEN_SIGNING_KEY: 'unused',
      PROXY_SEED: 'unused',
      CURSOR_SECRET: 'ab'.repeat(32),
    },
    store,
    close: async () => {
      await store.close();
      const cleanup = new pg.Client({ connectionString: TEST_POSTGRES_URL });
      await cleanup.connect();
      await cleanup.query(`drop database ${name} with (force)`);
      await cleanup.end();
    },
  };
}

function required(url: string | undefined): string {
  if (!url) throw new Error('TEST_DATABASE_URL is not set: run the tests through vitest, whose global setup sets it');
  return url;
}
