#!/usr/bin/env node
/**
 * PostgreSQL reads against their floor (issue 38, item 4; bench/postgres-floor.md): the signed-in movements
 * page and a single movement, the gateway directly (named statements), through PgBouncer in transaction mode
 * (unnamed) and directly unnamed, beside a bare Fastify route running the gateway's own SQL, directly and
 * through PgBouncer; their rounds alternating, then each at half its floor's rate for p99.
 * The run itself is lib/postgres-floor-run.mjs.
 *
 *   npm run build && node bench/postgres-floor.mjs [--rounds N] [--round-seconds S] [--warmup-seconds S]
 *                                                  [--connections N] [--quick] [--wait-idle S] [--seed TEXT]
 *
 * The gateway runs on the Node the project pins (the `node` devDependency): on another (the machine's
 * `node`), this script runs itself again on that one, so that every process of the run is on it.
 */
import { spawn } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const PINNED_NODE = fileURLToPath(new URL('../node_modules/.bin/node', import.meta.url));

if (existsSync(PINNED_NODE) && realpathSync(PINNED_NODE) !== realpathSync(process.execPath)) {
  const child = spawn(PINNED_NODE, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  // ^C reaches both; the child cleans up (its services, PgBouncer, the database).
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else {
  await import('./lib/postgres-floor-run.mjs');
}
