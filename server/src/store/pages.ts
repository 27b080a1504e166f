/** Keyset pages of stored documents, shared by the movement and trade lists. */
import type { Store } from './schema.js';

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

export function documentPage(rows: unknown[], limit: number, timeField: string): DocumentPage {
  const documents = rows.slice(0, limit) as string[];
  const lastDocument = documents.at(-1);
  const last = lastDocument === undefined ? undefined : (JSON.parse(lastDocument) as Record<string, string>);
  return {
    documents,
    last: last && [last[timeField] as string, last.id as string],
    hasNext: rows.length > limit,
  };
}

/** The last row of each key: one statement may not upsert the same row twice (PostgreSQL refuses). */
export function lastOfEach<T>(rows: readonly T[], key: (row: T) => string): T[] {
  return [...new Map(rows.map((row) => [key(row), row])).values()];
}
