/**
 * What the refresh-token design leaves behind, deleted one small batch at a time (store/housekeeping.ts
 * calls it in a loop): sign-ins that ended, and the old form's refresh tokens (rows of `refresh_tokens`,
 * issued before migration 0011) once expired. Both are found by index, in order of expiry, so a batch costs
 * what its rows cost whatever the tables hold.
 *
 * - A sign-in in its family's row ends at `expires_at`, after which nothing it issued works: its live refresh
 *   token and the access token issued with it have expired, and so has everything issued before (each refresh
 *   moves the end later). Revoked sign-ins are in the same case: a revocation matters while one of its access
 *   tokens lives, and a revoked sign-in issues none, so its end is past that too.
 * - An old-form refresh token is deleted `accessTokenSeconds` after it expired (the access token issued with
 *   it has expired by then); a sign-in of the old form goes with its last token.
 */
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export interface PruneOptions {
  /** At most this many rows deleted by a call. */
  batch: number;
  /** The longest an access token lives (seconds). */
  accessTokenSeconds: number;
}

/**
 * Deletes one batch (at most `batch` rows, one short transaction) of ended sign-ins and expired old-form
 * refresh tokens; how many rows it deleted, 0 when nothing is left to delete. Old-form tokens go first: a
 * sign-in that moved to its family's row keeps its earlier tokens' rows until they are deleted, and a sign-in
 * is deleted only without them (they expired before it ended, so they are deleted first).
 */
export async function pruneSignIns(db: Kysely<Database>, now: Date, options: PruneOptions): Promise<number> {
  const batch = Math.max(1, Math.floor(options.batch));
  const legacy = await pruneLegacyTokens(db, new Date(now.getTime() - options.accessTokenSeconds * 1000), batch);
  if (legacy > 0) return legacy;
  return pruneEndedSignIns(db, now.toISOString(), batch);
}

/**
 * Old-form refresh tokens expired before `before`, with their sign-ins when they were the last (a sign-in
 * of the old form, never moved to its row): at most `batch` rows in all (half of them tokens).
 */
async function pruneLegacyTokens(db: Kysely<Database>, before: Date, batch: number): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const expired = await trx
      .selectFrom('refresh_tokens')
      .select(['token_hash', 'family_id'])
      .where('expires_at', '<', before.toISOString())
      .orderBy('expires_at')
      .limit(Math.max(1, Math.floor(batch / 2)))
      .execute();
    if (expired.length === 0) return 0;
    const tokens = await trx
      .deleteFrom('refresh_tokens')
      .where(
        'token_hash',
        'in',
        expired.map((row) => row.token_hash),
      )
      .executeTakeFirst();
    const families = await trx
      .deleteFrom('token_families')
      .where('id', 'in', [...new Set(expired.map((row) => row.family_id))])
      .where('expires_at', 'is', null)
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('refresh_tokens as r')
              .select('r.family_id')
              .whereRef('r.family_id', '=', 'token_families.id'),
          ),
        ),
      )
      .executeTakeFirst();
    return Number(tokens.numDeletedRows) + Number(families.numDeletedRows);
  });
}

/** Sign-ins of the new form that ended before `now` (and kept no old-form token), oldest first. */
async function pruneEndedSignIns(db: Kysely<Database>, now: string, batch: number): Promise<number> {
  const result = await db
    .deleteFrom('token_families')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('token_families as f')
        .select('f.id')
        .where('f.expires_at', '<', now)
        .where((inner) =>
          inner.not(
            inner.exists(
              inner.selectFrom('refresh_tokens as r').select('r.family_id').whereRef('r.family_id', '=', 'f.id'),
            ),
          ),
        )
        .orderBy('f.expires_at')
        .limit(batch),
    )
    .where('expires_at', '<', now)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
