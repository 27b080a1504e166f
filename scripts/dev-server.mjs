// The server process of `npm run dev` (scripts/dev.mjs): `serve --demo` as `npm start` runs it, on the loop's
// own SQLite database, in a process started ahead of need.
import { spawn } from 'node:child_process';
import path from 'node:path';

/** How often the loop asks a starting server whether it answers (milliseconds). */
const POLL_MS = 50;

/**
 * A server process started ahead of need (scripts/dev-standby.mjs): it loads the server's dependencies and
 * waits for `serve` to run the server's command line (`serve --demo` on the demo exchange in `dataDir`).
 * Its lines go to ours.
 */
export function standbyServer(root, dataDir) {
  const cli = path.join(root, 'server/dist/cli.js');
  return spawn(
    process.execPath,
    [
      '--max-old-space-size=160',
      '--max-semi-space-size=16',
      path.join(root, 'scripts/dev-standby.mjs'),
      cli,
      'serve',
      '--demo',
    ],
    {
      cwd: root,
      stdio: ['inherit', 'inherit', 'inherit', 'pipe'],
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: `sqlite:${path.join(dataDir, 'gateway.db')}` },
    },
  );
}

/** Runs the server in a standby process (it loads server/dist as built now). */
export function serve(standby) {
  standby.stdio[3].end('serve\n');
  return standby;
}

export const ended = (child) => child.exitCode !== null || child.signalCode !== null;

/** Stops a server (SIGTERM: it finishes its requests; SIGKILL after 3 s). */
export function stopServer(child) {
  return new Promise((resolve) => {
    if (ended(child)) return resolve();
    const kill = setTimeout(() => child.kill('SIGKILL'), 3000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Whether `child` answers `url` (its liveness) before it ends. */
export async function answers(child, url) {
  while (!ended(child)) {
    const ok = await fetch(url, { signal: AbortSignal.timeout(1000) }).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return !ended(child);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return false;
}
