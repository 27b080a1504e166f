import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import { isPostgres } from '../rows.js';

/**
 * On SQLite a movements page is read from the index alone, like a trades page: with the documents in the
 * index, the 101 rows of a page are not looked up in the table one by one, which matters most for an
 * account whose rows are not in the page cache (the index adds about a third to the database's size). On
 * PostgreSQL the index stays as it is: a B-tree entry is limited to about 2.7 KB, and a movement's document
 * (its list of transactions) has no bound that would keep it under that.
 */
export const movementsPage: Migration = {
  async up(db: Kysely<unknown>) {
    if (isPostgres(db)) return;
    await db.schema.dropIndex('movements_by_account').execute();
    await db.schema
      .createIndex('movements_page')
      .on('movements')
      .columns(['account', 'created_at', 'id', 'document'])
      .execute();
  },
};
