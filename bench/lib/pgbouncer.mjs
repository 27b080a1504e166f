/**
 * A PgBouncer in transaction mode in front of a PostgreSQL server, for the bench: test/src/pgbouncer.ts's
 * configuration and start (that file is TypeScript and the bench runs plain Node), without its restart.
 * As root it runs as the `postgres` system user (PgBouncer refuses root), its files in a folder that user
 * owns. Any database name passes through to the server (`* = host=... port=...`); the startup parameters
 * node-postgres sends that PgBouncer does not carry are ignored (docs/deployment.md, "Behind a transaction
 * pooler").
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './common.mjs';

export const PGBOUNCER = process.env.PGBOUNCER_PATH ?? '/usr/sbin/pgbouncer';

/**
 * Starts PgBouncer in front of the server of `serverUrl` (a postgres:// URL). Returns its port, `through(url)`
 * (the URL with the pooler's host and port), `pid()` (PgBouncer's own process, from its pid file), its log
 * and `remove()` (stops it, SIGINT: at once, and deletes its files).
 */
export async function startPgBouncer(serverUrl, { poolSize = 20 } = {}) {
  if (!existsSync(PGBOUNCER)) throw new Error(`no ${PGBOUNCER} (apt-get install pgbouncer)`);
  const server = new URL(serverUrl);
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-pgbouncer-'));
  const asRoot = process.getuid?.() === 0;
  const user = decodeURIComponent(server.username || 'postgres');
  const file = (name) => path.join(dir, name);
  writeFileSync(file('users.txt'), `"${user}" ""\n"postgres" ""\n`);
  writeFileSync(
    file('pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      "unix_socket_dir = ''",
      'auth_type = trust',
      `auth_file = ${file('users.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${poolSize}`,
      'max_client_conn = 2000',
      'ignore_startup_parameters = extra_float_digits,options,statement_timeout,application_name',
      `logfile = ${file('pgbouncer.log')}`,
      `pidfile = ${file('pgbouncer.pid')}`,
      'server_reset_query =',
      // Beyond the tests' configuration: SHOW STATS on its console (database `pgbouncer`), for the bench.
      `stats_users = ${user}`,
      '',
    ].join('\n'),
  );
  if (asRoot) execFileSync('chown', ['-R', 'postgres', dir]);
  chmodSync(dir, 0o700);
  const log = () => (existsSync(file('pgbouncer.log')) ? readFileSync(file('pgbouncer.log'), 'utf8') : '');
  const pid = () =>
    existsSync(file('pgbouncer.pid')) ? Number(readFileSync(file('pgbouncer.pid'), 'utf8').trim()) : 0;
  const child = asRoot
    ? spawn('runuser', ['-u', 'postgres', '--', PGBOUNCER, file('pgbouncer.ini')], { stdio: 'ignore' })
    : spawn(PGBOUNCER, [file('pgbouncer.ini')], { stdio: 'ignore' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const remove = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      // SIGINT is PgBouncer's fast shutdown; runuser does not pass signals on, so PgBouncer's own pid is told.
      const own = pid();
      if (own > 0) process.kill(own, 'SIGINT');
      else child.kill('SIGINT');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 10_000;
  while (!(await listening(port))) {
    if (Date.now() > deadline || child.exitCode !== null) {
      const text = log();
      await remove();
      throw new Error(`PgBouncer did not listen on ${port}:\n${text}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    port,
    through(url) {
      const at = new URL(url);
      at.hostname = '127.0.0.1';
      at.port = String(port);
      return at.toString();
    },
    pid,
    log,
    remove,
  };
}

function listening(port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
