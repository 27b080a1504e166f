import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * The catalogue (platforms, currencies, terms, staking yields) and the feeds (movements, trades), with the
 * indexes their pages are read through.
 */
export const initial: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('platforms')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('address_kind', 'text', (c) => c.notNull())
      .addColumn('xpub', 'text', (c) => c.notNull())
      .addColumn('network', 'text')
      .execute();
    await db.schema
      .createTable('currencies')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('chain_asset_id', 'text', (c) => c.notNull())
      .addColumn('decimals', 'integer', (c) => c.notNull())
      .addColumn('default_platform_id', 'text', (c) => c.notNull().references('platforms.id'))
      .execute();
    await db.schema
      .createTable('currency_terms')
      .addColumn('direction', 'text', (c) => c.notNull())
      .addColumn('currency_id', 'text', (c) => c.notNull().references('currencies.id'))
      .addColumn('platform_id', 'text', (c) => c.notNull().references('platforms.id'))
      .addColumn('platform_asset_id', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('min_amount', 'text', (c) => c.notNull())
      .addColumn('max_amount', 'text', (c) => c.notNull())
      .addColumn('fee_flat', 'text', (c) => c.notNull())
      .addColumn('fee_rate', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('currency_terms_pk', ['direction', 'currency_id', 'platform_id'])
      .execute();
    await db.schema
      .createIndex('currency_terms_by_platform')
      .on('currency_terms')
      .columns(['platform_id', 'currency_id'])
      .execute();
    await db.schema
      .createTable('staking_yields')
      .addColumn('currency_id', 'text', (c) => c.primaryKey())
      .addColumn('apy', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('movements')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account', 'text', (c) => c.notNull())
      .addColumn('direction', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('source_platform_id', 'text', (c) => c.notNull())
      .addColumn('destination_platform_id', 'text', (c) => c.notNull())
      .addColumn('currency_id', 'text', (c) => c.notNull())
      .addColumn('amount', 'text', (c) => c.notNull())
      .addColumn('fee', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('recipient_address', 'text', (c) => c.notNull())
      .addColumn('transactions', 'text', (c) => c.notNull())
      .execute();
    // GET /v1/movements: WHERE account = ? AND (created_at, id) < cursor ORDER BY created_at DESC, id DESC.
    await db.schema
      .createIndex('movements_by_account')
      .on('movements')
      .columns(['account', 'created_at', 'id'])
      .execute();
    await db.schema
      .createTable('trades')
      .addColumn('address', 'text', (c) => c.notNull())
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('amount_currency_id', 'text', (c) => c.notNull())
      .addColumn('price_currency_id', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('timestamp', 'text', (c) => c.notNull())
      .addColumn('amount', 'text', (c) => c.notNull())
      .addColumn('price', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('trades_pk', ['address', 'id'])
      .execute();
    // GET trades: WHERE address, pair AND timestamp range AND (timestamp, id) beyond cursor, in either order.
    await db.schema
      .createIndex('trades_by_pair_and_time')
      .on('trades')
      .columns(['address', 'amount_currency_id', 'price_currency_id', 'timestamp', 'id'])
      .execute();
  },
};
