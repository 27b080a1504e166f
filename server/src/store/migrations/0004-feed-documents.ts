import { type Kysely, sql } from 'kysely';
import type { Migration } from 'kysely/migration';
import { isPostgres } from '../rows.js';

/**
 * Each movement and trade keeps the JSON text the API serves for it, rendered when it is written: a page is
 * then read as one text per row instead of a dozen values. Existing rows are rendered after the migrations
 * (store/documents.ts), as they are whenever the rendering changes.
 */
export const feedDocuments: Migration = {
  async up(db: Kysely<unknown>) {
    for (const table of ['movements', 'trades']) {
      await db.schema
        .alterTable(table)
        .addColumn('document', 'text', (c) => c.notNull().defaultTo(''))
        .execute();
    }
    // A trades page (up to 1,000 rows) is read from the index alone: with the documents in it, no row of the
    // table is visited (on SQLite the table lookups were half of a page's time).
    await db.schema.dropIndex('trades_by_pair_and_time').execute();
    const tradesColumns = sql.join(
      ['address', 'amount_currency_id', 'price_currency_id', 'timestamp', 'id'].map((c) => sql.ref(c)),
    );
    await (isPostgres(db)
      ? sql`create index trades_page on trades (${tradesColumns}) include (document)`
      : sql`create index trades_page on trades (${tradesColumns}, document)`
    ).execute(db);
    await db.schema
      .createTable('document_format')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('format', 'text', (c) => c.notNull())
      .execute();
    await (db as Kysely<{ document_format: { id: number; format: string } }>)
      .insertInto('document_format')
      .values({ id: 1, format: '' })
      .execute();
  },
};
