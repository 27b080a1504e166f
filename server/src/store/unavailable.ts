/**
 * Errors of a database that does not answer, by the drivers' codes and messages: those that may pass by
 * themselves (a connection refused, cut or timed out; a server shutting down or starting up; SQLite's lock
 * held by another writer), worth waiting for, and those that a wait does not mend (a host name that does
 * not resolve, a database that does not exist, a refused password, a SQLite file that cannot be opened).
 */

/** Failures of the connection, or the server saying "not now": they end by themselves. */
const TRANSIENT = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN', // a name server that does not answer
  'EPIPE',
  '57P01', // admin shutdown (the server is stopping)
  '57P02', // crash shutdown
  '57P03', // cannot connect now (starting up, or in recovery)
  '53300', // too many connections
  '08000', // connection exception
  '08001', // the client could not connect
  '08003', // connection does not exist
  '08006', // connection failure
  'SQLITE_BUSY', // another process holds the lock longer than the busy timeout
]);

/** The database cannot be used, and waiting does not change it: exit 3 at once, as when it is down. */
const LASTING = new Set([
  'ENOTFOUND',
  '3D000', // database does not exist
  '28000', // authorization refused
  '28P01', // password refused
  'SQLITE_CANTOPEN',
]);

/** node-postgres and its pool say these in words only. */
const TRANSIENT_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable/;

const codeOf = (error: Error) => (error as { code?: unknown }).code;

/** The database's storage is full: SQLite's SQLITE_FULL, PostgreSQL's disk_full, the file system's ENOSPC. */
const FULL = new Set(['SQLITE_FULL', '53100', 'ENOSPC']);

/**
 * Whether a write failed because the database's storage is full: an outage of writes (reads go on) that ends
 * when space is freed, and nothing of the failed write was kept.
 */
export function storageFull(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = codeOf(error);
  return typeof code === 'string' && FULL.has(code);
}

/** Whether the database does not answer now but may later: worth retrying what failed. */
export function databaseTransient(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  // A full disk passes once space is freed: an import waits for it as for a restart.
  if (storageFull(error)) return true;
  const code = codeOf(error);
  if (typeof code === 'string' && (TRANSIENT.has(code) || code.startsWith('SQLITE_BUSY'))) return true;
  // `localhost` tries each of its addresses: every one of them refused.
  if (error instanceof AggregateError) return error.errors.length > 0 && error.errors.every(databaseTransient);
  return TRANSIENT_MESSAGE.test(error.message);
}

/** Whether the database does not answer (now or for good): the command line's exit 3. */
export function databaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = codeOf(error);
  if (typeof code === 'string' && LASTING.has(code)) return true;
  if (error instanceof AggregateError) return error.errors.some(databaseUnavailable);
  return databaseTransient(error);
}
