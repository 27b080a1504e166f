/** A PostgreSQL database of its own for a test, on the server the global setup found or started. */
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const pg = require('pg') as typeof import('pg');

/** Set by the global setup (scripts/test-postgres.mjs): the server it found or started. */
const TEST_POSTGRES_URL = process.env.TEST_DATABASE_URL ?? '';
if (!TEST_POSTGRES_URL)
  throw new Error('TEST_DATABASE_URL is not set: run the tests through vitest, whose global setup sets it');

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export async function createDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `gw_${randomBytes(6).toString('hex')}`;
  await admin(`create database ${name}`);
  return {
    url: TEST_POSTGRES_URL.replace(/\/[^/]*$/, `/${name}`),
    drop: () => admin(`drop database if exists ${name} with (force)`),
  };
}

/** The number of rows of `table` in the database at `url`. */
export async function countRows(url: string, table: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(`select count(*)::int as n from ${client.escapeIdentifier(table)}`);
    return rows[0].n as number;
  } finally {
    await client.end();
  }
}

/**
 * Samples, every `everyMs` until `until` settles, how many sessions of the database at `url` wait for an
 * advisory lock (not yet granted); the most seen at once.
 */
export async function mostWaitingForAdvisoryLocks(url: string, until: Promise<unknown>, everyMs = 10): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let settled = false;
  const settle = () => {
    settled = true;
  };
  until.then(settle, settle);
  let most = 0;
  try {
    while (!settled) {
      const { rows } = await client.query(
        `select count(*)::int as n from pg_locks l join pg_database d on d.oid = l.database
          where l.locktype = 'advisory' and not l.granted and d.datname = current_database()`,
      );
      most = Math.max(most, rows[0].n as number);
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  } finally {
    await client.end();
  }
  return most;
}
