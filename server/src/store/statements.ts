/**
 * Prepared statements by their text: named ones for PostgreSQL (parsed and planned once per connection) and
 * a cache of prepared ones for SQLite.
 */
import { createHash } from 'node:crypto';
import type SqliteDatabase from 'better-sqlite3';

/**
 * Names for PostgreSQL prepared statements by source text. A named statement is parsed and planned once per
 * connection and then only bound and executed: for a list page that halves the database's CPU time per
 * page (parse, analysis and planning cost more than reading 101 rows by index). The texts are the few
 * shapes of the page queries (values are parameters), so names are given to the first `size` texts only
 * and anything beyond runs unnamed, as every other query does.
 */
export function statementNames(size = 100): (source: string) => string | undefined {
  const names = new Map<string, string>();
  return (source) => {
    let name = names.get(source);
    if (name === undefined && names.size < size) {
      // Named after the text itself, so that a name means one text in every instance and release: through
      // a transaction pooler, where another client's statement of that name may be on the connection, a
      // mix-up is refused by the database (26000, 42P05) instead of running another statement.
      name = `gateway_${createHash('sha256').update(source).digest('hex').slice(0, 32)}`;
      names.set(source, name);
    }
    return name;
  };
}

/**
 * A named statement refused because its connection is not the one it was prepared on (or another client's
 * statement of that name is there): the URL is a transaction pooler. Nothing ran, so the query may run again.
 */
export const poolerRefusal = (error: unknown): boolean =>
  ['26000', '42P05'].includes(String((error as { code?: unknown } | null)?.code ?? ''));

/** The most recent `size` prepared statements by source text. */
export function statementCache(prepare: (source: string) => SqliteDatabase.Statement, size = 500) {
  const prepared = new Map<string, SqliteDatabase.Statement>();
  return (source: string): SqliteDatabase.Statement => {
    let statement = prepared.get(source);
    if (!statement) {
      statement = prepare(source);
      if (prepared.size >= size) prepared.delete(prepared.keys().next().value as string);
      prepared.set(source, statement);
    }
    return statement;
  };
}
