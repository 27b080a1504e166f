#!/usr/bin/env node
/**
 * `gateway`: the operator's command line.
 *
 *   gateway serve [--demo]              serve the API (--demo: load the demo exchange into an empty database)
 *   gateway migrate                     apply database migrations
 *   gateway catalogue load FILE         load platforms, currencies, terms and staking yields (YAML or JSON)
 *   gateway movements import FILE       import movements (NDJSON, one record a line)
 *   gateway trades import FILE          import trades (NDJSON, one record a line)
 *
 * Configuration comes from the environment (see .env.example).
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.js';
import { CatalogueError } from './domain/catalogue.js';
import { importMovements, importTrades, loadCatalogueFile, type Progress } from './operator/commands.js';
import { ImportConflict, ImportError } from './operator/feed-import.js';
import { startServer } from './server.js';
import { CatalogueConflict } from './store/catalogue.js';
import { openStore } from './store/store.js';

const USAGE = `usage:
  gateway serve [--demo]
  gateway migrate
  gateway catalogue load FILE
  gateway movements import FILE [--batch-size N]
  gateway trades import FILE [--batch-size N]`;

/** Runs against the configured database, migrated first (unless the command is the migration itself). */
async function withStore<T>(run: (store: ReturnType<typeof openStore>) => Promise<T>, migrateFirst = true): Promise<T> {
  const config = loadConfig();
  const store = openStore(config.databaseUrl, { poolSize: 2 });
  try {
    if (migrateFirst) await store.migrate();
    return await run(store);
  } finally {
    await store.close();
  }
}

const progress: Progress = (done, phase) => process.stderr.write(`  ${done.toLocaleString('en')} lines ${phase}\n`);

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { demo: { type: 'boolean', default: false }, 'batch-size': { type: 'string' }, help: { type: 'boolean' } },
  });
  const [command, sub, file] = positionals;
  const batchSize = values['batch-size'] === undefined ? undefined : Number(values['batch-size']);
  if (batchSize !== undefined && !(Number.isInteger(batchSize) && batchSize > 0 && batchSize <= 5000)) {
    throw new UsageError('--batch-size must be an integer from 1 to 5000');
  }
  if (values.help || !command) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  if (command === 'serve') {
    await startServer(loadConfig(), { demo: values.demo });
    return -1;
  }
  if (command === 'migrate') {
    const applied = await withStore((store) => store.migrate(), false);
    console.log(applied.length > 0 ? `applied: ${applied.join(', ')}` : 'the database is up to date');
    return 0;
  }
  if (command === 'catalogue' && sub === 'load' && file) {
    await withStore((store) => loadCatalogueFile(store, file));
    console.log(`catalogue loaded from ${file}`);
    return 0;
  }
  if ((command === 'movements' || command === 'trades') && sub === 'import' && file) {
    const { chainId } = loadConfig();
    const report = await withStore((store) =>
      (command === 'movements' ? importMovements : importTrades)(store, file, chainId, { batchSize, progress }),
    );
    console.log(`${command}: ${report.written} record(s) of ${report.lines} line(s) imported from ${file}`);
    return 0;
  }
  throw new UsageError(`unknown command: ${positionals.join(' ')}`);
}

class UsageError extends Error {}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error: unknown) => {
    if (error instanceof UsageError) console.error(`${error.message}\n${USAGE}`);
    else if (
      error instanceof ConfigError ||
      error instanceof CatalogueError ||
      error instanceof CatalogueConflict ||
      error instanceof ImportError ||
      error instanceof ImportConflict
    ) {
      console.error(error.message);
    } else console.error(error);
    process.exit(error instanceof UsageError || error instanceof ConfigError ? 2 : 1);
  },
);
