/**
 * Migrations, the same for SQLite and PostgreSQL. Every list query is a keyset scan over one of the
 * indexes created here (see docs in the README's "Store" section).
 *
 * They are expand-only (new tables, nullable or defaulted columns, indexes), so that the previous release
 * runs on the schema of the next one: that is what lets a release be deployed instance by instance and
 * rolled back by redeploying. A drop, a rename or a narrowing comes in a later release, once no instance of
 * the old shape is left (docs/deployment.md, "Upgrades and rollbacks"; test/store/expand-only.test.ts).
 */
import { type Kysely, type Migration, sql } from 'kysely';
// Which database a migration runs on, for the few statements the two write differently.
import { accountEventIds } from './event-ids-migration.js';
import { isPostgres } from './rows.js';

const initial: Migration = {
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

const accounts: Migration = {
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

/** The catalogue's version: every catalogue load bumps it, so instances know when to reload their snapshot. */
const catalogueVersion: Migration = {
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

/**
 * Each movement and trade keeps the JSON text the API serves for it, rendered when it is written: a page is
 * then read as one text per row instead of a dozen values. Existing rows are rendered after the migrations
 * (store/documents.ts), as they are whenever the rendering changes.
 */
const feedDocuments: Migration = {
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

/**
 * On SQLite a movements page is read from the index alone, like a trades page: with the documents in the
 * index, the 101 rows of a page are not looked up in the table one by one, which matters most for an
 * account whose rows are not in the page cache (the index adds about a third to the database's size). On
 * PostgreSQL the index stays as it is: a B-tree entry is limited to about 2.7 KB, and a movement's document
 * (its list of transactions) has no bound that would keep it under that.
 */
const movementsPage: Migration = {
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

/**
 * Revoked sign-ins reach access tokens: every instance keeps the families revoked within an access token's
 * longest lifetime in memory, read through this index when it (re)connects. On PostgreSQL a trigger
 * announces each revocation (`NOTIFY`, delivered when its transaction commits, to every listening instance
 * of the schema, whichever process wrote it); SQLite has one writing process, which records its own.
 */
const revocations: Migration = {
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

/**
 * The account's events (GET /v1/events): each movement created or changed is recorded in `movement_events`
 * in the transaction that writes it (store/events.ts), with the document it was written with. `seq` orders
 * the events and is their id; `event_retention` keeps the highest `seq` pruned, so that a resume from below
 * it is told apart from one with nothing missed. On PostgreSQL a statement trigger announces new events
 * (`NOTIFY movement_events_<schema>`, delivered at commit to every listening instance, whichever process
 * wrote); on SQLite each instance polls the sequence.
 */
const movementEvents: Migration = {
  async up(db: Kysely<unknown>) {
    const postgres = isPostgres(db);
    await db.schema
      .createTable('movement_events')
      .addColumn('seq', postgres ? 'bigserial' : 'integer', (c) =>
        postgres ? c.primaryKey() : c.primaryKey().autoIncrement(),
      )
      .addColumn('account', 'text', (c) => c.notNull())
      .addColumn('movement_id', 'text', (c) => c.notNull())
      .addColumn('document', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    // A client's resume: WHERE account = ? AND seq > ? ORDER BY seq.
    await db.schema
      .createIndex('movement_events_by_account')
      .on('movement_events')
      .columns(['account', 'seq'])
      .execute();
    // Pruning: WHERE created_at < ?.
    await db.schema.createIndex('movement_events_by_time').on('movement_events').column('created_at').execute();
    await db.schema
      .createTable('event_retention')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('pruned_through', 'bigint', (c) => c.notNull())
      .execute();
    await (db as Kysely<{ event_retention: { id: number; pruned_through: number } }>)
      .insertInto('event_retention')
      .values({ id: 1, pruned_through: 0 })
      .execute();
    if (!postgres) return;
    await sql`
      create function movement_events_recorded() returns trigger language plpgsql as $$
      begin
        perform pg_notify(left('movement_events_' || tg_table_schema, 63), '');
        return null;
      end $$`.execute(db);
    await sql`
      create trigger movement_events_recorded after insert on movement_events
      for each statement execute function movement_events_recorded()`.execute(db);
  },
};

/**
 * Signing out ends the password: per account, the latest signed expiry of a revoked sign-in (its password's,
 * ISO 8601 like every time here). The password grant refuses a password signed for an expiry at or before
 * it, in the statement that starts the sign-in (store/token.ts); a revocation raises it, never lowers it.
 */
const signOuts: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('account_sign_outs')
      .addColumn('account', 'text', (c) => c.primaryKey())
      .addColumn('signed_out_through', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
  },
};

export const migrations: Record<string, Migration> = {
  '0001_catalogue_and_feeds': initial,
  '0002_accounts_and_tokens': accounts,
  '0003_catalogue_version': catalogueVersion,
  '0004_feed_documents': feedDocuments,
  '0005_movements_page': movementsPage,
  '0006_revocations': revocations,
  '0007_movement_events': movementEvents,
  '0008_account_sign_outs': signOuts,
  '0009_account_event_ids': accountEventIds,
};
