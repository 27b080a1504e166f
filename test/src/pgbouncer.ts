/**
 * A PgBouncer in transaction mode in front of the tests' PostgreSQL, as large deployments run one (Debian's
 * `pgbouncer` package; `.ci/run` installs it). It refuses to run as root, so as root it runs as the
 * `postgres` system user, its files in a folder that user owns. Any database name is passed through to the
 * server (`* = host=... port=...`). The startup parameters node-postgres sends that PgBouncer does not carry
 * are ignored, as operators configure it (docs/deployment.md, "Behind a transaction pooler").
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const PGBOUNCER = process.env.PGBOUNCER_PATH ?? '/usr/sbin/pgbouncer';

/** Why PgBouncer cannot run here (null when it reports its version). */
export function pgbouncerProblem(): string | null {
  if (!existsSync(PGBOUNCER)) return `no ${PGBOUNCER}`;
  try {
    const version = execFileSync(PGBOUNCER, ['--version'], { encoding: 'utf8', timeout: 10_000 });
    return /PgBouncer \d+\.\d+/i.test(version) ? null : `no version in its answer: ${JSON.stringify(version)}`;
  } catch (error) {
    return (error as Error).message.split('\n')[0] ?? 'it does not start';
  }
}

export interface RunningPooler {
  /** `url` with the pooler's host and port instead of the server's. */
  through(url: string): string;
  readonly port: number;
  /** Stops it (SIGINT: at once, closing every connection). */
  stop(): Promise<void>;
  /** Starts it again on the same port and configuration. */
  start(): Promise<void>;
  /** Stops it and removes its files. */
  remove(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function waitForPort(port: number, ms: number, log: () => string): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`PgBouncer did not listen on ${port} within ${ms} ms:\n${log()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Starts a PgBouncer in transaction mode in front of the server of `serverUrl` (a postgres:// URL). */
export async function startPgBouncer(serverUrl: string, settings: { poolSize?: number } = {}): Promise<RunningPooler> {
  const server = new URL(serverUrl);
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'gateway-pgbouncer-'));
  const asRoot = process.getuid?.() === 0;
  const user = decodeURIComponent(server.username || 'postgres');
  // PgBouncer logs in to the server with the password its file holds for the user (the server the tests
  // started themselves asks for one; the machine's trusts).
  const password = decodeURIComponent(server.password).replaceAll('"', '""');
  const ini = path.join(dir, 'pgbouncer.ini');
  writeFileSync(
    path.join(dir, 'users.txt'),
    user === 'postgres' ? `"postgres" "${password}"\n` : `"${user}" "${password}"\n"postgres" ""\n`,
  );
  writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      "unix_socket_dir = ''",
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${settings.poolSize ?? 20}`,
      'max_client_conn = 2000',
      'ignore_startup_parameters = extra_float_digits,options,statement_timeout,application_name',
      `logfile = ${path.join(dir, 'pgbouncer.log')}`,
      `pidfile = ${path.join(dir, 'pgbouncer.pid')}`,
      'server_reset_query =',
      '',
    ].join('\n'),
  );
  if (asRoot) execFileSync('chown', ['-R', 'postgres', dir]);
  chmodSync(dir, 0o700);
  const log = () =>
    existsSync(path.join(dir, 'pgbouncer.log')) ? readFileSync(path.join(dir, 'pgbouncer.log'), 'utf8') : '';
  let child: ReturnType<typeof spawn> | null = null;

  const start = async () => {
    const command = asRoot ? 'runuser' : PGBOUNCER;
    const args = asRoot ? ['-u', 'postgres', '--', PGBOUNCER, ini] : [ini];
    child = spawn(command, args, { stdio: 'ignore' });
    await waitForPort(port, 10_000, log);
  };
  const stop = async () => {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      // SIGINT is PgBouncer's fast shutdown. runuser does not pass signals on: PgBouncer's own pid is told.
      const pidFile = path.join(dir, 'pgbouncer.pid');
      const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : 0;
      if (pid > 0) process.kill(pid, 'SIGINT');
      else running.kill('SIGINT');
    });
  };
  await start();
  return {
    port,
    through(url) {
      const at = new URL(url);
      at.hostname = '127.0.0.1';
      at.port = String(port);
      return at.toString();
    },
    stop,
    start,
    async remove() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
