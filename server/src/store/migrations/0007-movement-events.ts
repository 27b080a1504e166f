import { type Kysely, sql } from 'kysely';
import type { Migration } from 'kysely/migration';
import { isPostgres } from '../rows.js';

/**
 * The account's events (GET /v1/events): each movement created or changed is recorded in `movement_events`
 * in the transaction that writes it (store/events.ts), with the document it was written with. `seq` orders
 * the events and is their id; `event_retention` keeps the highest `seq` pruned, so that a resume from below
 * it is told apart from one with nothing missed. On PostgreSQL a statement trigger announces new events
 * (`NOTIFY movement_events_<schema>`, delivered at commit to every listening instance, whichever process
 * wrote); on SQLite each instance polls the sequence.
 */
export const movementEvents: Migration = {
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
