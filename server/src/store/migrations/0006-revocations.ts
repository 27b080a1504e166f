import { type Kysely, sql } from 'kysely';
import type { Migration } from 'kysely/migration';
import { isPostgres } from '../rows.js';

/**
 * Revoked sign-ins reach access tokens: every instance keeps the families revoked within an access token's
 * longest lifetime in memory, read through this index when it (re)connects. On PostgreSQL a trigger
 * announces each revocation (`NOTIFY`, delivered when its transaction commits, to every listening instance
 * of the schema, whichever process wrote it); SQLite has one writing process, which records its own.
 */
export const revocations: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createIndex('token_families_revoked')
      .on('token_families')
      .column('revoked_at')
      .where(sql.ref('revoked_at'), 'is not', null)
      .execute();
    if (!isPostgres(db)) return;
    await sql`
      create function token_family_revoked() returns trigger language plpgsql as $$
      begin
        perform pg_notify(left('revoked_' || tg_table_schema, 63), new.id);
        return null;
      end $$`.execute(db);
    await sql`
      create trigger token_family_revoked after update of revoked_at on token_families
      for each row when (old.revoked_at is null and new.revoked_at is not null)
      execute function token_family_revoked()`.execute(db);
  },
};
