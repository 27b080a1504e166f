/** What the commands share: the configured store, the wait for its database, and the files they read. */
import { accessSync, constants, statSync } from 'node:fs';
import type { Config } from '../config.js';
import { type DatabaseRetry, databaseRetry } from '../operator/database-wait.js';
import { DatabaseAhead } from '../store/migrator.js';
import { openStore, type Store } from '../store/store.js';

/** Fails, as the file system would, unless `file` is a file this process can read. */
export function readable(file: string): void {
  if (statSync(file).isDirectory()) {
    throw Object.assign(new Error(`EISDIR: ${file}`), { code: 'EISDIR', path: file });
  }
  accessSync(file, constants.R_OK);
}

/**
 * Runs against the configured database, migrated first unless told otherwise; with `retry`, a database that
 * does not answer yet is waited for. A database a newer release migrated is used as it is (its schema is
 * this release's and more), said in one line on standard error.
 */
export async function withStore<T>(
  config: Config,
  run: (store: Store) => Promise<T>,
  migrateFirst = true,
  retry?: DatabaseRetry,
): Promise<T> {
  // An operator's command takes the direct connection when there is one (migrations, the imports' long
  // transactions), else DATABASE_URL as it is configured.
  const store = config.databaseDirectUrl
    ? openStore(config.databaseDirectUrl, { poolSize: 2 })
    : openStore(config.databaseUrl, { poolSize: 2, poolMode: config.databasePoolMode });
  try {
    if (migrateFirst) {
      const migrate = () =>
        store.migrate().catch((error: unknown) => {
          if (!(error instanceof DatabaseAhead)) throw error;
          process.stderr.write(`${error.notice('working')}\n`);
          return [];
        });
      await (retry ? retry(migrate, { to: 'check its migrations', done: 'migrations checked' }) : migrate());
    }
    return await run(store);
  } finally {
    await store.close();
  }
}

/** Waiting for the database, said on standard error like the progress. */
export const commandRetry = (waitMs: number, setting: string, signal?: AbortSignal) =>
  databaseRetry({ waitMs, setting, signal, say: (_level, line) => process.stderr.write(`  ${line}\n`) });
