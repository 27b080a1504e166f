import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/** The catalogue's version: every catalogue load bumps it, so instances know when to reload their snapshot. */
export const catalogueVersion: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('catalogue_version')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('version', 'integer', (c) => c.notNull())
      .execute();
    await (db as Kysely<{ catalogue_version: { id: number; version: number } }>)
      .insertInto('catalogue_version')
      .values({ id: 1, version: 0 })
      .execute();
  },
};
