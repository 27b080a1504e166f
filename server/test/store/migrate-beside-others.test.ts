/**
 * Migrations beside other stores in the same PostgreSQL database: Kysely's migrator reads the catalogue of every
 * schema, so schemas created and dropped meanwhile (other stores, other test runs, tenants) fail its read with
 * "does not exist" (3F000, 42P01, 42703). The migration is tried again and applies once; nothing is half-done.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/store.js';
import { TEST_POSTGRES_URL } from '../support/databases.js';

const admin = new pg.Pool({ connectionString: TEST_POSTGRES_URL, max: 4 });
const made: string[] = [];
afterAll(async () => {
  for (const schema of made) await admin.query(`drop schema if exists ${schema} cascade`);
  await admin.end();
});

/** Schemas with a table, created and dropped one after the other until `stop` says so. */
async function churn(stop: () => boolean): Promise<number> {
  let rounds = 0;
  while (!stop()) {
    const schema = `churn_${randomBytes(6).toString('hex')}`;
    await admin.query(`create schema ${schema}; create table ${schema}.t (id serial primary key, v text)`);
    await admin.query(`drop schema ${schema} cascade`);
    rounds++;
  }
  return rounds;
}

describe('migrations while other schemas come and go', () => {
  it('every store migrates to the latest migration, each migration applied once', async () => {
    let done = false;
    const churners = [churn(() => done), churn(() => done)];
    try {
      for (let i = 0; i < 12; i++) {
        const schema = `t_${randomBytes(6).toString('hex')}`;
        made.push(schema);
        await admin.query(`create schema ${schema}`);
        const store = openStore(TEST_POSTGRES_URL, { schema, poolSize: 2 });
        try {
          await store.migrate();
          const { rows } = await admin.query(`select name from ${schema}.kysely_migration order by name`);
          const names = rows.map((r: { name: string }) => r.name);
          expect(names.length).toBeGreaterThanOrEqual(12);
          expect(new Set(names).size).toBe(names.length);
        } finally {
          await store.close();
        }
      }
    } finally {
      done = true;
    }
    expect((await Promise.all(churners)).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  });
});
