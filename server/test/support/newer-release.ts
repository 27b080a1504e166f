/**
 * A database as a newer release leaves it: this release's migrations, then one it does not know, applied
 * the way the rule allows (expand-only: a nullable column and a table), and every document rendered in the
 * newer release's format.
 */
import { type Kysely, sql } from 'kysely';
import { migrations } from '../../src/store/migrations.js';

/** The newer release's migration: after this release's last, as a later release's names are. */
export const NEWER_MIGRATION = '0999_from_a_newer_release';
/** The format the newer release rendered documents in (not this release's). */
export const NEWER_FORMAT = 'rendered-by-a-newer-release';
/** This release's last migration. */
export const LAST_MIGRATION = Object.keys(migrations).sort().at(-1) as string;

/** Applies a newer release's expand-only migration to a migrated database, and records it as Kysely would. */
export async function migrateAsNewerRelease(db: Kysely<unknown>): Promise<void> {
  await sql`alter table movements add column memo text`.execute(db);
  await sql`create table newer_release_things (id text primary key, note text)`.execute(db);
  await sql`insert into kysely_migration (name, timestamp) values (${NEWER_MIGRATION}, ${new Date().toISOString()})`.execute(
    db,
  );
  await sql`update document_format set format = ${NEWER_FORMAT}`.execute(db);
}
