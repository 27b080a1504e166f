/**
 * Migration 0012 (PostgreSQL): storage settings for the two tables rewritten all day.
 *
 * - `token_families`: room on each page for the next version of its rows. A refresh rewrites its sign-in's
 *   row; when the new version fits on the row's page and no indexed column changed (the sign-in's end moves
 *   a few times a day: domain/refresh-grant.ts `signInEnd`), PostgreSQL makes it a heap-only update: no new
 *   entry in any index, and the old version's space taken back on that page the next time it is read. On
 *   pages filled to the brim each first refresh of a row goes to another page, with new index entries that
 *   only a vacuum removes. Pages written from now on are filled to 90%.
 * - `movement_events`: deleted by housekeeping every few minutes, a day after they were written. With the
 *   default autovacuum rule (a fifth of the table dead) a day of events waits for hours of deletions before
 *   their space is reused; vacuumed once 2% of it is dead, the table stays near one day's size.
 *
 * Storage settings only, which no release reads (expand-only). SQLite reuses freed pages by itself.
 */
import { type Kysely, sql } from 'kysely';
import type { Migration } from 'kysely/migration';
import { isPostgres } from '../rows.js';

export const churningTables: Migration = {
  async up(db: Kysely<unknown>) {
    if (!isPostgres(db)) return;
    await sql`alter table token_families set (fillfactor = 90)`.execute(db);
    await sql`alter table movement_events set (autovacuum_vacuum_scale_factor = 0.02)`.execute(db);
  },
};
