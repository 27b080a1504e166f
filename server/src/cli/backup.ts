/** `gateway backup FILE` and `gateway restore FILE`: the embedded database copied out and put back (operator/backup.ts). */
import { loadConfig } from '../config.js';
import { type BackupReport, backupSqlite, restoreSqlite } from '../operator/backup.js';
import { isPostgresUrl, sqlitePath } from '../store/store.js';
import { COMMANDS } from './commands.js';
import { commandHelp, EXIT, UsageError } from './usage.js';

/** The embedded database's file; a usage error on PostgreSQL, whose own tools do this. */
function sqliteFile(command: 'backup' | 'restore'): string {
  const { databaseUrl } = loadConfig();
  const help = commandHelp(COMMANDS.find((c) => c.name === command) as (typeof COMMANDS)[number]);
  if (isPostgresUrl(databaseUrl)) {
    const tool = command === 'backup' ? 'pg_dump or continuous archiving' : 'pg_restore';
    throw new UsageError(
      `gateway ${command} is for the embedded database; on PostgreSQL use ${tool} (docs/deployment.md, "Backups")`,
      help,
    );
  }
  const file = sqlitePath(databaseUrl);
  if (file === ':memory:') throw new UsageError(`an in-memory database has nothing to ${command}`, help);
  return file;
}

const said = (r: BackupReport) =>
  `${(r.bytes / 1024 / 1024).toFixed(1)} MiB, migration ${r.migration ?? 'none'}, in ${(r.milliseconds / 1000).toFixed(2)} s`;

export function backupCommand(target: string): number {
  const report = backupSqlite(sqliteFile('backup'), target);
  console.log(`backup written to ${report.file} (${said(report)})`);
  return EXIT.done;
}

export function restoreCommand(backup: string): number {
  const report = restoreSqlite(backup, sqliteFile('restore'));
  console.log(`restored ${report.file} from ${backup} (${said(report)})`);
  return EXIT.done;
}
