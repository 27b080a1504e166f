/**
 * Migration 0011: a sign-in's refresh tokens live in its family's row instead of a row each. The family keeps
 * its live token's generation and hash, the tokens spent within the reuse grace, the claims it reissues and
 * when it ends (`expires_at`, indexed so that housekeeping deletes ended sign-ins in order); a token names
 * its family and generation (domain/refresh-token.ts), so that a spent one is recognised without a row of
 * its own. `refresh_tokens` keeps the tokens issued before: they work until they expire (their first
 * refresh moves the sign-in to its family's row), and are deleted by expiry through the new index.
 *
 * Expand-only: nullable columns and two indexes. The previous release neither reads nor writes the new
 * columns; a token of the new form is unknown to it (docs/deployment.md, "Upgrades and rollbacks").
 */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/** The columns added to `token_families`, all text but the generation. */
const COLUMNS = ['claims', 'chain_hash', 'token_hash', 'token_expires_at', 'spent_recently', 'expires_at'] as const;

export const refreshGenerations: Migration = {
  async up(db: Kysely<unknown>) {
    for (const column of COLUMNS) await db.schema.alterTable('token_families').addColumn(column, 'text').execute();
    await db.schema.alterTable('token_families').addColumn('generation', 'integer').execute();
    await db.schema.createIndex('token_families_expiry').on('token_families').column('expires_at').execute();
    await db.schema.createIndex('refresh_tokens_expiry').on('refresh_tokens').column('expires_at').execute();
  },
};
