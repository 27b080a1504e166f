/**
 * Runs a bench script on the Node pinned in the workspace (node_modules/.bin/node: the build and
 * better-sqlite3's binary need it), whatever Node started it: on another Node, the script runs itself again
 * there, ^C reaching both (the child cleans up what it started); on the pinned one, `run` is called.
 */
import { spawn } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const PINNED_NODE = fileURLToPath(new URL('../../node_modules/.bin/node', import.meta.url));

export async function onPinnedNode(scriptUrl, run) {
  if (existsSync(PINNED_NODE) && realpathSync(PINNED_NODE) !== realpathSync(process.execPath)) {
    const child = spawn(PINNED_NODE, [fileURLToPath(scriptUrl), ...process.argv.slice(2)], { stdio: 'inherit' });
    for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
    child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  } else {
    await run();
  }
}
