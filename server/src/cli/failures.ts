/** The one sentence an error of a command becomes, and its exit code. */
import { ConfigError } from '../config.js';
import { CatalogueError } from '../domain/catalogue.js';
import { BackupError } from '../operator/backup.js';
import { DatabaseGone } from '../operator/database-wait.js';
import { ImportError } from '../operator/feed-import.js';
import { ImportConflict, StreamRefusal } from '../operator/stream-refusals.js';
import { CatalogueConflict } from '../store/catalogue.js';
import { DatabaseAhead, MigrationMismatch } from '../store/migrator.js';
import { databaseUnavailable, storageFull } from '../store/unavailable.js';
import { TracingConfigError } from '../tracing.js';
import { EXIT, UsageError } from './usage.js';

/** Input refused for what it holds (the file's or the stream's content): exit 1, nothing of it written. */
const invalidInput = (error: unknown): error is Error =>
  error instanceof CatalogueError ||
  error instanceof CatalogueConflict ||
  error instanceof ImportError ||
  error instanceof ImportConflict ||
  error instanceof StreamRefusal ||
  error instanceof BackupError;

/** Input of `file` refused: the message names the file. */
class FileInputError extends Error {
  constructor(file: string, refusal: Error) {
    super(`${file}: ${refusal.message}`, { cause: refusal });
  }
}

/** Runs what reads `file`; a refusal of its content names it. */
export async function readingFile<T>(file: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw invalidInput(error) ? new FileInputError(file, error) : error;
  }
}

/** The one sentence an error becomes, and its exit code. */
export function explain(error: unknown): { message: string; code: number } {
  if (error instanceof UsageError) return { message: `${error.message}\n\n${error.help}`, code: EXIT.usage };
  if (error instanceof ConfigError || error instanceof TracingConfigError)
    return { message: error.message, code: EXIT.usage };
  if (invalidInput(error) || error instanceof FileInputError)
    return { message: error.message, code: EXIT.invalidInput };
  if (error instanceof DatabaseAhead || error instanceof MigrationMismatch)
    return { message: error.message, code: EXIT.invalidInput };
  const fileError = error as NodeJS.ErrnoException;
  if (fileError?.path !== undefined && ['ENOENT', 'EACCES', 'EISDIR', 'EPERM'].includes(fileError.code ?? '')) {
    const why = {
      ENOENT: 'no such file',
      EACCES: 'permission denied',
      EPERM: 'permission denied',
      EISDIR: 'a directory',
    };
    return {
      message: `cannot read ${fileError.path}: ${why[fileError.code as keyof typeof why]}`,
      code: EXIT.invalidInput,
    };
  }
  const listening = error as NodeJS.ErrnoException & { address?: string; port?: number; setting?: string };
  if (listening?.syscall === 'listen' && (listening.code === 'EADDRINUSE' || listening.code === 'EACCES')) {
    const why = listening.code === 'EADDRINUSE' ? 'the port is in use' : 'permission denied';
    return {
      message: `cannot listen on ${listening.address}:${listening.port}: ${why} (set ${listening.setting ?? 'PORT or HOST'})`,
      code: EXIT.usage,
    };
  }
  if (error instanceof DatabaseGone) return { message: error.message, code: EXIT.databaseUnavailable };
  if (databaseUnavailable(error)) {
    const detail = error instanceof Error && error.message ? ` (${error.message.split('\n')[0]})` : '';
    const what = storageFull(error) ? "the database's storage is full" : 'the database is unavailable';
    return { message: `${what}${detail}`, code: EXIT.databaseUnavailable };
  }
  return { message: error instanceof Error ? error.message : String(error), code: EXIT.invalidInput };
}
