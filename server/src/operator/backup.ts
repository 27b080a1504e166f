/**
 * Backups of the embedded database, made while it serves, and their restore.
 *
 * A backup is `VACUUM INTO` a new file from a read-only connection: one read transaction, so the copy is the
 * database as of one moment whatever the server writes meanwhile, and it finishes under write load (the
 * sqlite3 shell's `.backup` restarts at every write of another connection: still retrying after 20 s of
 * refreshes in a trial, where `VACUUM INTO` took 0.63 s). The copy is written beside the target, checked
 * (`integrity_check`, the migrations table) and only then renamed into place, so a target that exists is
 * always a whole, checked backup.
 *
 * A restore puts a backup in place of the database file, only when nothing has that database open: it takes
 * SQLite's exclusive lock first, which any open connection (a serving instance, an import) prevents.
 */
import { closeSync, copyFileSync, existsSync, fsyncSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';

/** A backup or restore refused for what it was given (exit 1): the message says what and why. */
export class BackupError extends Error {}

export interface BackupReport {
  file: string;
  bytes: number;
  /** The last migration recorded in the copy. */
  migration: string | null;
  milliseconds: number;
}

/** Checks a database file: whole (`integrity_check`) and the gateway's (its migrations table); its last migration. */
function checkedMigration(file: string): string | null {
  let db: SqliteDatabase.Database;
  try {
    db = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new BackupError(`${file} is not a SQLite database (${(error as Error).message})`);
  }
  try {
    let found: unknown[];
    try {
      found = db.prepare('pragma integrity_check').pluck().all();
    } catch (error) {
      throw new BackupError(`${file} is not a SQLite database (${(error as Error).message})`);
    }
    if (found.length !== 1 || found[0] !== 'ok') {
      throw new BackupError(`${file} is damaged: ${found.slice(0, 3).join('; ')}`);
    }
    const hasMigrations = db
      .prepare("select 1 from sqlite_master where type = 'table' and name = 'kysely_migration'")
      .get();
    if (!hasMigrations) throw new BackupError(`${file} is not a gateway database (it has no migrations table)`);
    const last = db.prepare('select name from kysely_migration order by name desc limit 1').pluck().get();
    return typeof last === 'string' ? last : null;
  } finally {
    db.close();
  }
}

/** Flushes a file's content to disk. */
function fsyncFile(file: string): void {
  const fd = openSync(file, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Copies the database `database` (a file path) into the new file `target`, consistent as of one moment, while
 * other connections go on writing. Refuses a target that exists.
 */
export function backupSqlite(database: string, target: string): BackupReport {
  const started = performance.now();
  const destination = path.resolve(target);
  if (existsSync(destination)) throw new BackupError(`${destination} exists: a backup never overwrites a file`);
  if (!existsSync(database)) throw new BackupError(`no database file at ${database}`);
  const partial = `${destination}.partial-${process.pid}`;
  rmSync(partial, { force: true });
  const source = new SqliteDatabase(database, { readonly: true, fileMustExist: true, timeout: 5000 });
  try {
    source.prepare('VACUUM INTO ?').run(partial);
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  } finally {
    source.close();
  }
  try {
    const migration = checkedMigration(partial);
    fsyncFile(partial);
    renameSync(partial, destination);
    return {
      file: destination,
      bytes: statSync(destination).size,
      migration,
      milliseconds: performance.now() - started,
    };
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
}

/**
 * Puts the backup `backup` in place of the database `database`, which nothing may have open. The backup is
 * checked first; the database's write-ahead log and shared-memory files go with the old file.
 */
export function restoreSqlite(backup: string, database: string): BackupReport {
  const started = performance.now();
  const source = path.resolve(backup);
  if (!existsSync(source)) throw new BackupError(`no backup file at ${source}`);
  if (source === path.resolve(database)) throw new BackupError('the backup is the database itself');
  const migration = checkedMigration(source);
  if (existsSync(database)) {
    // Proof that nothing has the database open: the exclusive lock, refused at once while a connection is.
    const current = new SqliteDatabase(database, { fileMustExist: true, timeout: 0 });
    try {
      current.pragma('locking_mode = EXCLUSIVE');
      current.exec('BEGIN EXCLUSIVE');
      current.exec('COMMIT');
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_BUSY') {
        throw new BackupError(
          `${database} is open (a serving instance, an import or another command): stop them, then restore`,
        );
      }
      throw error;
    } finally {
      current.close();
    }
  }
  const partial = `${database}.restore-${process.pid}`;
  copyFileSync(source, partial);
  fsyncFile(partial);
  for (const suffix of ['-wal', '-shm']) rmSync(`${database}${suffix}`, { force: true });
  renameSync(partial, database);
  return { file: database, bytes: statSync(database).size, migration, milliseconds: performance.now() - started };
}
