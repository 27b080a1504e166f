import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * Accounts and tokens: deposit and withdrawal addresses, sign-ins (token families) and their refresh tokens.
 */
export const accounts: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('deposit_addresses')
      .addColumn('account', 'text', (c) => c.notNull())
      .addColumn('platform_id', 'text', (c) => c.notNull().references('platforms.id'))
      .addColumn('child_index', 'integer', (c) => c.notNull())
      .addColumn('address', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('deposit_addresses_pk', ['account', 'platform_id'])
      .addUniqueConstraint('deposit_addresses_index_unique', ['platform_id', 'child_index'])
      .execute();
    await db.schema
      .createTable('withdrawal_addresses')
      .addColumn('proxy_index', 'integer', (c) => c.notNull().primaryKey())
      .addColumn('account', 'text', (c) => c.notNull())
      .addColumn('currency_id', 'text', (c) => c.notNull())
      .addColumn('destination', 'text', (c) => c.notNull())
      .addColumn('platform_id', 'text', (c) => c.notNull())
      .addColumn('proxy_address', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('withdrawal_addresses_route_unique', [
        'account',
        'currency_id',
        'destination',
        'platform_id',
      ])
      .execute();
    await db.schema
      .createTable('token_families')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account', 'text', (c) => c.notNull())
      .addColumn('revoked_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('refresh_tokens')
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('family_id', 'text', (c) => c.notNull().references('token_families.id'))
      .addColumn('claims', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('used_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('refresh_tokens_by_family').on('refresh_tokens').column('family_id').execute();
  },
};
