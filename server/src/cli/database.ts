/** The commands about the database itself: `gateway migrate`, `gateway status` and `gateway catalogue load`. */
import { existsSync } from 'node:fs';
import { loadConfig } from '../config.js';
import { readStatus, statusLines, unansweredStatus } from '../operator/status.js';
import { isPostgresUrl, type Store, sqlitePath } from '../store/store.js';
import { EXIT } from './usage.js';
import { commandRetry, readable, withStore } from './with-store.js';

export async function migrateCommand(): Promise<number> {
  const config = loadConfig();
  const retry = commandRetry(config.databaseWaitSeconds * 1000, 'DATABASE_WAIT_SECONDS');
  const migrate = (store: Store) =>
    retry ? retry(() => store.migrate(), { to: 'migrate', done: 'migrating' }) : store.migrate();
  const applied = await withStore(config, migrate, false);
  console.log(applied.length > 0 ? `applied: ${applied.join(', ')}` : 'the database is up to date');
  return EXIT.done;
}

export async function statusCommand(json: boolean): Promise<number> {
  const config = loadConfig();
  // A SQLite file that is not there is not created by looking at it (a mistyped path stays visible).
  const file = isPostgresUrl(config.databaseUrl) ? null : sqlitePath(config.databaseUrl);
  const status =
    file !== null && file !== ':memory:' && !existsSync(file)
      ? unansweredStatus('sqlite', `no database file at ${file}`, config)
      : await withStore(config, (store) => readStatus(store, config), false);
  console.log(json ? JSON.stringify(status, null, 2) : statusLines(status).join('\n'));
  return status.database.answers ? EXIT.done : EXIT.databaseUnavailable;
}

export async function catalogueLoadCommand(file: string): Promise<number> {
  readable(file);
  // The catalogue's parser and checks (YAML, the record schemas) only for this command.
  const [{ loadCatalogueFile }, { readingFile }] = await Promise.all([
    import('../operator/commands.js'),
    import('./failures.js'),
  ]);
  await readingFile(file, () => withStore(loadConfig(), (store) => loadCatalogueFile(store, file)));
  console.log(`catalogue loaded from ${file}`);
  return EXIT.done;
}
