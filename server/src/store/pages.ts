/** Keyset pages of stored documents, shared by the movement and trade lists. */
import type { CompiledQuery } from 'kysely';
import { itemsWithin } from '../lib/page-bytes.js';
import type { Statement, Store } from './schema.js';

export type SortOrder = 'asc' | 'desc';
/** Position of the last item of a page: its time and id. */
export type Keyset = readonly [time: string, id: string];

/**
 * A page of documents (the stored JSON text of each item) and the keyset of its last item. Only the
 * documents are read: the keyset is taken from the last one, which holds its time and id as served.
 */
export interface DocumentPage {
  documents: string[];
  last: Keyset | undefined;
  hasNext: boolean;
}

/** Where list pages are read: the query builder and the store's row-object-free read. */
export type PageSource = Pick<Store, 'db' | 'firstColumn'>;

/** The texts of the read queries, by store (its query builder) and shape. */
const texts = new WeakMap<object, Map<string, string>>();

/**
 * A read query built by Kysely once per store and shape, then run with each request's values: its text
 * depends only on its shape (which conditions, which order), every value is a parameter. Building and
 * compiling it on every request cost the gateway more CPU than the database spent on a single movement.
 * `parameters` are the request's values in the order the query takes them, checked against the built
 * query's when the shape is first built. The statement is a plain object: Kysely's `CompiledQuery.raw` froze
 * three objects and drew a random query id on every call, a few per cent of a signed-in read's own work.
 */
export function compiledOnce(
  db: object,
  shape: string,
  parameters: readonly unknown[],
  build: () => CompiledQuery,
): Statement {
  let byShape = texts.get(db);
  if (byShape === undefined) {
    byShape = new Map();
    texts.set(db, byShape);
  }
  let text = byShape.get(shape);
  if (text === undefined) {
    const built = build();
    const same = built.parameters.length === parameters.length && built.parameters.every((v, i) => v === parameters[i]);
    if (!same) throw new Error(`the query "${shape}" takes its values in another order than given`);
    text = built.sql;
    byShape.set(shape, text);
  }
  return { sql: text, parameters };
}

/** How large a page may be: items, and bytes of the whole answer (lib/page-bytes.ts). */
export interface PageSize {
  limit: number;
  maxBytes: number;
}

/**
 * The page of `rows` (the documents of at most `limit + 1` items from the cursor on) that fits its size;
 * more follow when any row is left out, whether by the limit or by the bytes.
 */
export function documentPage(rows: unknown[], size: PageSize, timeField: string): DocumentPage {
  const documents = rows.slice(0, itemsWithin(rows as string[], size.limit, size.maxBytes)) as string[];
  const lastDocument = documents.at(-1);
  const last = lastDocument === undefined ? undefined : (JSON.parse(lastDocument) as Record<string, string>);
  return {
    documents,
    last: last && [last[timeField] as string, last.id as string],
    hasNext: rows.length > documents.length,
  };
}

/**
 * A feed record that would change what places its row in a list (a movement's `created_at` and `account`, a
 * trade's `timestamp`): refused, since a row that moved across a cursor would be skipped or seen twice by a
 * walk under way. `index` is the record's place in the batch; `earlier` the place of the record of the same
 * batch it contradicts, or null when it contradicts the stored row.
 */
export class OrderChange extends Error {
  constructor(
    readonly index: number,
    readonly subject: string,
    readonly field: string,
    readonly stored: string,
    readonly given: string,
    readonly earlier: number | null,
  ) {
    super(`${subject}: ${field} is ${stored}, not ${given}; it does not change once stored`);
  }
}

/** What an upsert is told about its rows to keep the order of their lists. */
export interface FixedFields<T, F extends keyof T & string> {
  key: (row: T) => string;
  /** How a row is named to the operator: `movement <id>`. */
  subject: (row: T) => string;
  fields: readonly F[];
}

/**
 * The first record of `batch` (in its order) that changes a fixed field, of a stored row (`stored`, by key)
 * or of an earlier record of the batch with the same key: a file is refused the same whatever its batches.
 * Times are compared as text: the feed stores every time in one form (lib/time.ts), so equal texts are
 * equal instants and the converse.
 */
export function firstOrderChange<T, F extends keyof T & string>(
  batch: readonly T[],
  fixed: FixedFields<T, F>,
  stored: ReadonlyMap<string, Pick<T, F>> = new Map(),
): OrderChange | null {
  const seen = new Map<string, { row: Pick<T, F>; index: number | null }>(
    [...stored].map(([key, row]) => [key, { row, index: null }]),
  );
  for (const [index, row] of batch.entries()) {
    const key = fixed.key(row);
    const first = seen.get(key);
    if (first === undefined) {
      seen.set(key, { row, index });
      continue;
    }
    const field = fixed.fields.find((f) => first.row[f] !== row[f]);
    if (field !== undefined) {
      return new OrderChange(
        index,
        fixed.subject(row),
        field,
        String(first.row[field]),
        String(row[field]),
        first.index,
      );
    }
  }
  return null;
}

/** The last row of each key: one statement may not upsert the same row twice (PostgreSQL refuses). */
export function lastOfEach<T>(rows: readonly T[], key: (row: T) => string): T[] {
  return [...new Map(rows.map((row) => [key(row), row])).values()];
}
