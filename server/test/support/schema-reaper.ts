/**
 * Global setup of the server's tests: the PostgreSQL schemas the tests create are dropped at the end of the
 * run, not when each test closes its store. Dropping a schema while another test file's migration
 * introspects the catalogue (Kysely's table list calls `pg_get_serial_sequence` on every schema's tables)
 * fails that migration with "schema … does not exist": a race between test files, not a fault of the server.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';

export default function setup(): () => Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'gateway-schemas-'));
  const file = path.join(dir, 'schemas');
  // Read by test/support/databases.ts in the workers, which inherit this process's environment.
  process.env.TEST_SCHEMAS_FILE = file;
  return async () => {
    let names: string[] = [];
    try {
      names = readFileSync(file, 'utf8')
        .split('\n')
        .filter((name) => /^t_[0-9a-f]{12}$/.test(name));
    } catch {
      // no PostgreSQL store was made
    }
    rmSync(dir, { recursive: true, force: true });
    const url = process.env.TEST_DATABASE_URL;
    if (names.length === 0 || !url) return;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      for (const name of names) await client.query(`drop schema if exists ${name} cascade`);
    } finally {
      await client.end();
    }
  };
}
