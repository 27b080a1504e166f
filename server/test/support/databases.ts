/** A fresh store per test: a temporary SQLite file, or a schema of its own in the test PostgreSQL. */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openStore, type Store } from '../../src/store/store.js';

/** PostgreSQL runs on 127.0.0.1:5432 (database `test`) here and in CI. */
export const TEST_POSTGRES_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
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
      const cleanup = new pg.Client({ connectionString: TEST_POSTGRES_URL });
      await cleanup.connect();
      await cleanup.query(`drop schema ${schema} cascade`);
      await cleanup.end();
    },
  };
}
