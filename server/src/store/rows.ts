/**
 * How the feed's rows reach an insert statement. On PostgreSQL all of a batch goes into one statement, as
 * one JSON parameter that `json_populate_recordset` reads as rows of the table's own type: a VALUES list of
 * 1,000 movements would be 14,000 bound parameters that the server parses and plans again for every batch,
 * and that the driver binds one by one. On SQLite, where statements run in-process and are prepared once
 * per text, VALUES lists of at most 2,000 rows (a statement binds at most 32,766 parameters).
 */
import { type InsertObject, type InsertQueryBuilder, type Kysely, PostgresAdapter, sql } from 'kysely';
import type { Database } from './schema.js';

/** Whether `db` (a store's Kysely, a transaction, the migrations' untyped Kysely) is PostgreSQL. */
export const isPostgres = (db: { getExecutor(): { readonly adapter: unknown } }): boolean =>
  db.getExecutor().adapter instanceof PostgresAdapter;

/**
 * Rows per VALUES list: a statement's values are bound parameters, at most 65,535 on PostgreSQL and 32,766
 * on SQLite; a feed row has up to 15 columns, so 2,000 rows stay below both at any batch size.
 */
const ROWS_PER_STATEMENT = 2000;

/**
 * Rows per JSON parameter: a default batch is one statement, and the text stays far below what one string
 * may hold (a movement with its document is a few kilobytes; 10,000 of them some tens of megabytes).
 */
const JSON_ROWS_PER_STATEMENT = 10_000;

/** `rows` in slices of at most `size`. */
function slices<T>(rows: readonly T[], size = ROWS_PER_STATEMENT): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}

/**
 * The statements that insert `rows` into `table`: each gives an insert its rows (then its conflict clause
 * and what it returns are added as usual). Every row holds exactly `columns` (SQLite's VALUES lists take
 * every key of a row; PostgreSQL's JSON reads `columns` only).
 */
export function withRows<TB extends keyof Database & string, O>(
  db: Kysely<Database>,
  table: TB,
  columns: readonly (keyof Database[TB] & string)[],
  rows: readonly InsertObject<Database, TB>[],
): ((insert: InsertQueryBuilder<Database, TB, O>) => InsertQueryBuilder<Database, TB, O>)[] {
  if (!isPostgres(db)) return slices(rows).map((slice) => (insert) => insert.values(slice));
  return slices(rows, JSON_ROWS_PER_STATEMENT).map((slice) => {
    const select = sql`select ${sql.join(columns.map((c) => sql.ref(c)))}
      from json_populate_recordset(null::${sql.table(table)}, ${JSON.stringify(slice)}::json)`;
    return (insert) => insert.columns(columns).expression(select);
  });
}
