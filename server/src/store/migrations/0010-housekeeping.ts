import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * What housekeeping deletes by, found by index whatever the table's size (store/housekeeping.ts): sign-out
 * marks by the expiry they hold. (Events are pruned by `movement_events_by_time` and their sequence; sign-ins
 * by the index their own migration makes.)
 */
export const housekeeping: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createIndex('account_sign_outs_by_expiry')
      .ifNotExists()
      .on('account_sign_outs')
      .column('signed_out_through')
      .execute();
  },
};
