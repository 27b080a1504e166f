/** A PostgreSQL database of its own for a test, on the test server (127.0.0.1:5432 here and in CI). */
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const pg = require('pg') as typeof import('pg');

export const TEST_POSTGRES_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

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
