/**
 * Which database failures are waited for (transient) and which end a command at once: the drivers' real
 * errors, from a stopped PostgreSQL, a missing database, a terminated connection and a locked SQLite file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { databaseTransient, databaseUnavailable } from '../../src/store/unavailable.js';
import { stoppedPostgresUrl, TEST_POSTGRES_URL } from '../support/databases.js';

const failureOf = async (run: () => Promise<unknown>) => {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('it did not fail');
};

describe('database failures', () => {
  it('a PostgreSQL that refuses connections, or cuts one, is transient', async () => {
    const refused = await failureOf(async () => {
      const client = new pg.Client({ connectionString: await stoppedPostgresUrl() });
      await client.connect();
    });
    expect(databaseTransient(refused)).toBe(true);
    expect(databaseUnavailable(refused)).toBe(true);

    const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    client.on('error', () => {});
    await client.connect();
    const { rows } = await client.query('select pg_backend_pid() as pid');
    const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    await admin.connect();
    await admin.query('select pg_terminate_backend($1)', [rows[0].pid]);
    await admin.end();
    const cut = await failureOf(() => client.query('select 1'));
    expect(cut).toBeInstanceOf(Error);
    expect(databaseTransient(cut), String(cut)).toBe(true);
  });

  it('a database that does not exist is unavailable, and not worth waiting for', async () => {
    const missing = await failureOf(async () => {
      const client = new pg.Client({ connectionString: TEST_POSTGRES_URL.replace(/\/[^/]*$/, '/no_such_database') });
      await client.connect();
    });
    expect((missing as { code?: string }).code).toBe('3D000');
    expect(databaseTransient(missing)).toBe(false);
    expect(databaseUnavailable(missing)).toBe(true);
  });

  it('a SQLite file locked by another writer is transient; one that cannot be opened is not', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gateway-busy-'));
    try {
      const file = path.join(dir, 'busy.db');
      const holder = new SqliteDatabase(file);
      holder.exec('create table t (x)');
      holder.exec('begin immediate');
      const other = new SqliteDatabase(file, { timeout: 0 });
      let busy: unknown;
      try {
        other.exec('begin immediate');
      } catch (error) {
        busy = error;
      }
      expect((busy as { code?: string }).code).toBe('SQLITE_BUSY');
      expect(databaseTransient(busy)).toBe(true);
      holder.exec('rollback');
      holder.close();
      other.close();
      let cannotOpen: unknown;
      try {
        // A file where no file can be made.
        new SqliteDatabase('/proc/gateway.db');
      } catch (error) {
        cannotOpen = error;
      }
      expect((cannotOpen as { code?: string }).code).toBe('SQLITE_CANTOPEN');
      expect(databaseTransient(cannotOpen)).toBe(false);
      expect(databaseUnavailable(cannotOpen)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('anything else is neither: a refused record, a syntax error, a value that is not an error', async () => {
    const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    await client.connect();
    const syntax = await failureOf(() => client.query('selec 1'));
    await client.end();
    for (const error of [syntax, new Error('line 3: not a number'), 'ECONNREFUSED', null]) {
      expect(databaseTransient(error)).toBe(false);
      expect(databaseUnavailable(error)).toBe(false);
    }
    const everyAddress = new AggregateError([
      Object.assign(new Error('connect ECONNREFUSED ::1:5432'), { code: 'ECONNREFUSED' }),
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
    ]);
    expect(databaseTransient(everyAddress)).toBe(true);
  });
});
