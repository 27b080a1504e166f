import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * Signing out ends the password: per account, the latest signed expiry of a revoked sign-in (its password's,
 * ISO 8601 like every time here). The password grant refuses a password signed for an expiry at or before
 * it, in the statement that starts the sign-in (store/token.ts); a revocation raises it, never lowers it.
 */
export const signOuts: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('account_sign_outs')
      .addColumn('account', 'text', (c) => c.primaryKey())
      .addColumn('signed_out_through', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
  },
};
