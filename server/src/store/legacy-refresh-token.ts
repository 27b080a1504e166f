/**
 * Refresh tokens of the old form (issued before migration 0011, or by the previous release during a rolling
 * upgrade): a row of `refresh_tokens` each, by hash, with the claims it reissues. They work until they
 * expire; the first refresh of one moves its sign-in to its family's row (store/token-family.ts), in the same
 * transaction that spends it. Their rows are deleted by expiry (store/token-housekeeping.ts).
 */
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Database, Store } from './schema.js';
import { advanceSignIn, type NextToken } from './token-family.js';

/** A stored refresh token of the old form. */
export interface LegacyRefreshToken {
  familyId: string;
  claims: string;
  expiresAt: string;
  usedAt: string | null;
}

export async function findLegacyRefreshToken(
  db: Kysely<Database>,
  tokenHash: string,
): Promise<LegacyRefreshToken | null> {
  const row = await db
    .selectFrom('refresh_tokens')
    .select(['family_id as familyId', 'claims', 'expires_at as expiresAt', 'used_at as usedAt'])
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
  return row ?? null;
}

/**
 * Issues `next` in the family's row (from its generation `from`, null for a sign-in still of the old form)
 * and spends the old-form token presented, together or not at all: false when the family is revoked or its
 * generation moved, or (`replay` false) when the token was spent meanwhile. A replay within the grace
 * (`replay` true) spends whatever old-form token of the family is still unspent (one an instance of the
 * previous release issued), keeping the replayed token's spending time; it matches the replayed token too,
 * so that the update always changes a row.
 */
export async function spendLegacyToken(
  store: Store,
  spent: { familyId: string; tokenHash: string; replay: boolean; now: string },
  from: number | null,
  next: NextToken,
): Promise<boolean> {
  const { db } = store;
  const spend = spent.replay
    ? db
        .updateTable('refresh_tokens')
        .set({ used_at: sql<string>`coalesce(used_at, ${spent.now})` })
        .where('family_id', '=', spent.familyId)
        .where((eb) => eb.or([eb('used_at', 'is', null), eb('token_hash', '=', spent.tokenHash)]))
    : db
        .updateTable('refresh_tokens')
        .set({ used_at: spent.now })
        .where('token_hash', '=', spent.tokenHash)
        .where('used_at', 'is', null);
  // The family's row first: on PostgreSQL its lock orders the refreshes of a sign-in.
  return store.allOrNothing([advanceSignIn(db, spent.familyId, from, next).compile(), spend.compile()]);
}
