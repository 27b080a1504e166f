#!/usr/bin/env node
// `npm test`: finds or starts the PostgreSQL the tests run on once for the whole run (scripts/test-postgres.mjs),
// then runs every workspace's tests through turbo with TEST_DATABASE_URL naming it. Turbo's options pass
// through: `npm test -- --filter=@gateway/client`.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findOrStartPostgres } from './test-postgres.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
let postgres;
try {
  postgres = await findOrStartPostgres();
} catch (error) {
  console.error(error.message);
  process.exit(1);
}
const turbo = spawn(
  path.join(root, 'node_modules/.bin/turbo'),
  ['run', 'test', '--log-order=grouped', ...process.argv.slice(2)],
  { stdio: 'inherit', env: { ...process.env, TEST_DATABASE_URL: postgres.url } },
);
// Turbo stops its tasks on these; the embedded server (if any) is stopped by its own hooks.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => turbo.kill(signal));
turbo.on('exit', async (code, signal) => {
  await postgres.stop();
  process.exit(code ?? (signal ? 1 : 0));
});
