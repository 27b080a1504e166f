/**
 * Migration 0009: each account's events get ids of their own (`movement_events.account_seq`), 1, 2, 3… in
 * the order of its events, so that an id tells an account nothing of the others' activity (before, the id
 * was `seq`, one count for the whole server). `event_accounts` keeps each account's last id, drawn in the
 * transaction that records the events (store/events.ts), and `legacy_through`, below which an id was one
 * of the server-wide count that came before.
 *
 * Across the upgrade, expand-only (the previous release keeps running on this schema):
 * - Accounts that may hold a server-wide id (those with events or a sign-in) go on from the server's count
 *   at the upgrade, M: a client holding M (its stream's position, nothing new since) resumes exactly; a
 *   client holding an older id is answered with a `reset` (it re-reads its movements). They learn M, a
 *   count of the past they were shown already, and nothing after it.
 * - The previous release inserts events without `account_seq`: a trigger numbers them like the new code
 *   does, in the same transaction (under the same lock on PostgreSQL), so every event has its account's id.
 * - The server-wide count (`seq`, still the readers' order) and the pruned mark jump to at least 10^15, so
 *   that whatever an instance of the previous release hands out after the upgrade (positions, ids) is above
 *   any account's own id: an upgraded instance answers it with a `reset` instead of reading it as one of
 *   the account's ids, and such an instance answers the new ids with a `reset` too (below its pruned mark).
 */
import { type Kysely, sql } from 'kysely';
import type { Migration } from 'kysely/migration';
import { isPostgres } from '../rows.js';

/** Where the server-wide count goes on from after the upgrade: above any account's own id. */
export const SERVER_COUNT_FLOOR = 1e15;

export const accountEventIds: Migration = {
  async up(db: Kysely<unknown>) {
    const postgres = isPostgres(db);
    // Event writers of the previous release wait for this (they take the same lock before drawing a seq),
    // so M below is the last id they handed out, and whatever they write next is numbered by the trigger.
    if (postgres) await sql`select pg_advisory_xact_lock(hashtext('movement_events_' || current_schema()))`.execute(db);
    await db.schema.alterTable('movement_events').addColumn('account_seq', 'bigint').execute();
    // A client's resume: WHERE account = ? AND account_seq > ? ORDER BY account_seq. It replaces the index by
    // (account, seq), which only the previous release's resumes used (they still work, reading the account's
    // events through this one): an index more on every event would cost each import's batch.
    await db.schema
      .createIndex('movement_events_by_account_id')
      .on('movement_events')
      .columns(['account', 'account_seq'])
      .execute();
    await db.schema.dropIndex('movement_events_by_account').execute();
    // Every batch updates the counts of its accounts: on PostgreSQL room is left in each page for the new
    // versions of its rows (updates that touch no index then write no index entry); on SQLite the rows are
    // the primary key's index itself.
    await db.schema
      .createTable('event_accounts')
      .addColumn('account', 'text', (c) => c.primaryKey())
      .addColumn('last_id', 'bigint', (c) => c.notNull())
      .addColumn('legacy_through', 'bigint', (c) => c.notNull().defaultTo(0))
      .modifyEnd(postgres ? sql`with (fillfactor = 50)` : sql`without rowid`)
      .execute();
    const { rows } = await sql<{ m: string | number | null }>`
      select max(m) as m from (
        select pruned_through as m from event_retention
        union all select max(seq) from movement_events) counts`.execute(db);
    const m = Number(rows[0]?.m ?? 0);
    await sql`
      insert into event_accounts (account, last_id, legacy_through)
      select account, ${sql.lit(m)}, ${sql.lit(m)} from (
        select account from movement_events union select account from token_families) legacy`.execute(db);
    const floor = Math.max(m, SERVER_COUNT_FLOOR);
    await sql`update event_retention set pruned_through = ${sql.lit(floor)} where pruned_through < ${sql.lit(floor)}`.execute(
      db,
    );
    if (postgres) {
      await sql`select setval(pg_get_serial_sequence('movement_events', 'seq'), ${sql.lit(floor)})`.execute(db);
      await sql`
        create function movement_events_numbered() returns trigger language plpgsql
        set search_path from current as $$
        begin
          insert into event_accounts as a (account, last_id) values (new.account, 1)
            on conflict (account) do update set last_id = a.last_id + 1
            returning a.last_id into new.account_seq;
          return new;
        end $$`.execute(db);
      await sql`
        create trigger movement_events_numbered before insert on movement_events
        for each row when (new.account_seq is null) execute function movement_events_numbered()`.execute(db);
      return;
    }
    await sql`
      insert into sqlite_sequence (name, seq) select 'movement_events', 0
      where not exists (select 1 from sqlite_sequence where name = 'movement_events')`.execute(db);
    await sql`update sqlite_sequence set seq = max(seq, ${sql.lit(floor)}) where name = 'movement_events'`.execute(db);
    await sql`
      create trigger movement_events_numbered after insert on movement_events
      for each row when new.account_seq is null
      begin
        insert into event_accounts (account, last_id) values (new.account, 1)
          on conflict (account) do update set last_id = last_id + 1;
        update movement_events set account_seq = (select last_id from event_accounts where account = new.account)
          where seq = new.seq;
      end`.execute(db);
  },
};
