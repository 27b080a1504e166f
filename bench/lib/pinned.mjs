/**
 * Imported first by a bench script that loads the build or better-sqlite3 at its top: on another Node than the
 * one pinned in the workspace (node_modules/.bin/node; the system's Node 20 crashes in the SQLite driver built
 * for it), the script runs again there, its Node flags (`--expose-gc`) and arguments passed on, and this
 * process exits with its status before any other import of the script is evaluated. Synchronous on purpose:
 * an asynchronous wait here would not hold back the script's other imports. ^C reaches both (one process
 * group). Scripts whose work starts in a function use lib/pinned-node.mjs's `onPinnedNode` instead.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const PINNED_NODE = fileURLToPath(new URL('../../node_modules/.bin/node', import.meta.url));

if (existsSync(PINNED_NODE) && realpathSync(PINNED_NODE) !== realpathSync(process.execPath)) {
  const { status, signal } = spawnSync(PINNED_NODE, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
  });
  process.exit(status ?? (signal ? 1 : 0));
}
