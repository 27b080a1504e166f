/** Refresh-token families: a family per sign-in, its refresh tokens (by hash), their spending and revocation. */
import { type Kysely, sql } from 'kysely';
import type { Database, Store } from './schema.js';

/** A refresh token to store: its hash (never the token), the family, and the claims it reissues. */
export interface RefreshTokenRow {
  tokenHash: string;
  familyId: string;
  claims: string;
  expiresAt: string;
  now: string;
}

/** The insert of a refresh token row (compiled by the grants, to run together with another write). */
const insertRefreshToken = (db: Kysely<Database>, row: RefreshTokenRow) =>
  db.insertInto('refresh_tokens').values({
    token_hash: row.tokenHash,
    family_id: row.familyId,
    claims: row.claims,
    expires_at: row.expiresAt,
    used_at: null,
    created_at: row.now,
  });

/**
 * A new token family with its first refresh token, written together or not at all. On PostgreSQL it is one
 * statement (the family inserted in a `WITH`): one round trip and one commit, where a transaction around two
 * inserts takes four round trips. SQLite has no inserts in `WITH`; a transaction there is in-process.
 */
export async function startTokenFamily(store: Store, account: string, token: RefreshTokenRow): Promise<void> {
  const { db } = store;
  const family = { id: token.familyId, account, revoked_at: null, created_at: token.now };
  if (store.dialect === 'postgres') {
    await db
      .with('family', (q) => q.insertInto('token_families').values(family).returning('id'))
      .insertInto('refresh_tokens')
      .columns(['token_hash', 'family_id', 'claims', 'expires_at', 'used_at', 'created_at'])
      .expression((eb) =>
        eb
          .selectFrom('family')
          .select([
            sql.val(token.tokenHash).as('token_hash'),
            'family.id',
            sql.val(token.claims).as('claims'),
            sql.val(token.expiresAt).as('expires_at'),
            sql.lit(null).as('used_at'),
            sql.val(token.now).as('created_at'),
          ]),
      )
      .execute();
    return;
  }
  const written = await store.allOrNothing([
    db.insertInto('token_families').values(family).compile(),
    insertRefreshToken(db, token).compile(),
  ]);
  if (!written) throw new Error('the token family was not written');
}

/** A stored refresh token and the state of its family. */
export interface StoredRefreshToken {
  familyId: string;
  claims: string;
  expiresAt: string;
  usedAt: string | null;
  familyRevokedAt: string | null;
}

export async function findRefreshToken(db: Kysely<Database>, tokenHash: string): Promise<StoredRefreshToken | null> {
  const row = await db
    .selectFrom('refresh_tokens as r')
    .innerJoin('token_families as f', 'f.id', 'r.family_id')
    .select([
      'r.family_id as familyId',
      'r.claims',
      'r.expires_at as expiresAt',
      'r.used_at as usedAt',
      'f.revoked_at as familyRevokedAt',
    ])
    .where('r.token_hash', '=', tokenHash)
    .executeTakeFirst();
  return row ?? null;
}

/**
 * Spends a refresh token and stores its successor, together or not at all: true when this call spent it.
 * The conditional update decides between concurrent spenders (exactly one wins), and the family's state is
 * part of that one decision. A failure to store the successor leaves the token unspent, so its holder can
 * try again instead of having to sign in anew.
 */
export async function replaceRefreshToken(
  store: Store,
  tokenHash: string,
  successor: RefreshTokenRow,
): Promise<boolean> {
  const { db } = store;
  return store.allOrNothing([
    db
      .updateTable('refresh_tokens')
      .set({ used_at: successor.now })
      .where('token_hash', '=', tokenHash)
      .where('used_at', 'is', null)
      .where('family_id', 'in', (eb) => eb.selectFrom('token_families').select('id').where('revoked_at', 'is', null))
      .compile(),
    insertRefreshToken(db, successor).compile(),
  ]);
}

/**
 * Revokes a token family (a spent refresh token presented again, or a revocation request). On PostgreSQL
 * the update's trigger announces it to every instance when it commits (migration 0006).
 */
export async function revokeTokenFamily(db: Kysely<Database>, familyId: string, now: string): Promise<void> {
  await db
    .updateTable('token_families')
    .set({ revoked_at: now })
    .where('id', '=', familyId)
    .where('revoked_at', 'is', null)
    .execute();
}

/** The families revoked at or after `since`, with when (read when an instance starts listening). */
export async function familiesRevokedSince(
  db: Kysely<Database>,
  since: string,
): Promise<{ id: string; revokedAt: string }[]> {
  const rows = await db
    .selectFrom('token_families')
    .select(['id', 'revoked_at as revokedAt'])
    .where('revoked_at', 'is not', null)
    .where('revoked_at', '>=', since)
    .execute();
  return rows as { id: string; revokedAt: string }[];
}
