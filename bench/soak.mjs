#!/usr/bin/env node
/**
 * The soak: a simulated month of the 50,000-user day of issue 37 (two sign-ins a day per user, a refresh
 * every 5 minutes for 8 hours, 200,000 movements a day), compressed, on SQLite and PostgreSQL, with the
 * housekeeping at the end of each simulated day; then a refresh with 500,000 sign-ins stored beside one with
 * 3,000, rounds alternating. Table rows and bytes per day, statement times, bytes per operation and the
 * extrapolation to the full scale (lib/soak-run.mjs; bench/soak.md).
 *
 *   npm run build && node bench/soak.mjs                 # 36 days at 1/250 of the users, both stores (≈ 10 min)
 *   node bench/soak.mjs --days 40 --scale 0.01           # 1/100 of the users (slower)
 *   node bench/soak.mjs --quick                          # 5 days, 1/1000, 2-day refresh tokens (≈ 1 min)
 *   node bench/soak.mjs --only refresh --stores sqlite   # the refresh row alone
 *
 * Runs on the Node pinned in the workspace (node_modules/.bin/node: better-sqlite3's binary needs it).
 */
import { spawn } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const PINNED_NODE = fileURLToPath(new URL('../node_modules/.bin/node', import.meta.url));

if (existsSync(PINNED_NODE) && realpathSync(PINNED_NODE) !== realpathSync(process.execPath)) {
  const child = spawn(PINNED_NODE, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  // ^C reaches both; the child drops its databases.
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else {
  await import('./lib/soak-run.mjs');
}
