/** Starts the real server (the built `gateway` binary, embedded database, demo exchange) on a free port. */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, waitForPort } from './prism.js';

const CLI = fileURLToPath(new URL('../../server/dist/cli.js', import.meta.url));

export interface RunningGateway {
  readonly url: string;
  readonly dataDir: string;
  /** What the server printed (its log). */
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * `options.dataDir`: a data folder to reuse (a restart); it is then kept when the server stops.
 */
export async function startGateway(
  env: Record<string, string> = {},
  options: { dataDir?: string } = {},
): Promise<RunningGateway> {
  const port = await freePort();
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), 'gateway-e2e-'));
  const child: ChildProcess = spawn(process.execPath, [CLI, 'serve', '--demo'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: `sqlite:${path.join(dataDir, 'gateway.db')}`,
      TOKEN_RATE_LIMIT: '100000',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const collect = (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  try {
    await waitForPort(port, child, () => log, 60_000);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    url: `http://127.0.0.1:${port}`,
    dataDir,
    output: () => log,
    stop: (signal = 'SIGTERM') =>
      new Promise((resolve) => {
        const done = () => {
          if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
          resolve(child.exitCode);
        };
        if (child.exitCode !== null) return done();
        child.once('exit', done);
        child.kill(signal);
      }),
  };
}
