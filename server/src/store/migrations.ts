/**
 * Migrations, the same for SQLite and PostgreSQL. Every list query is a keyset scan over one of the
 * indexes they create (docs/changing-the-api.md, "The store").
 *
 * They are expand-only (new tables, nullable or defaulted columns, indexes), so that the previous release
 * runs on the schema of the next one: that is what lets a release be deployed instance by instance and
 * rolled back by redeploying. A drop, a rename or a narrowing comes in a later release, once no instance of
 * the old shape is left (docs/deployment.md, "Upgrades and rollbacks"; test/store/expand-only.test.ts).
 */
import type { Migration } from 'kysely/migration';
import { initial } from './migrations/0001-catalogue-and-feeds.js';
import { accounts } from './migrations/0002-accounts-and-tokens.js';
import { catalogueVersion } from './migrations/0003-catalogue-version.js';
import { feedDocuments } from './migrations/0004-feed-documents.js';
import { movementsPage } from './migrations/0005-movements-page.js';
import { revocations } from './migrations/0006-revocations.js';
import { movementEvents } from './migrations/0007-movement-events.js';
import { signOuts } from './migrations/0008-account-sign-outs.js';
import { accountEventIds } from './migrations/0009-account-event-ids.js';
import { housekeeping } from './migrations/0010-housekeeping.js';
import { refreshGenerations } from './migrations/0011-refresh-generations.js';
import { churningTables } from './migrations/0012-churning-tables.js';

/** Every migration, by name, in the order they apply; one file each in migrations/. */
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
  '0010_housekeeping': housekeeping,
  '0011_refresh_generations': refreshGenerations,
  '0012_churning_tables': churningTables,
};
