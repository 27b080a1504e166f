/** Starts the real server (the built `gateway` binary, embedded database, demo exchange) on a free port. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, spawnService } from './prism.js';

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
  const { child, output } = await spawnService([CLI, 'serve', '--demo'], port, {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: `sqlite:${path.join(dataDir, 'gateway.db')}`,
      TOKEN_RATE_LIMIT: '100000',
      // The limits per client address are tested on their own; every test here comes from one address.
      SIGN_INS_PER_ADDRESS_HOUR: '0',
      WITHDRAWAL_ADDRESSES_PER_ADDRESS_HOUR: '0',
      LOG_LEVEL: 'warn',
      ...env,
    },
    keep: 20_000,
  });
  return {
    url: `http://127.0.0.1:${port}`,
    dataDir,
    output,
    stop: (signal = 'SIGTERM') =>
      new Promise((resolve) => {
        const done = () => {
          if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
          resolve(child.exitCode);
        };
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once('exit', done);
        child.kill(signal);
      }),
  };
}
