/**
 * Refresh-token families: a family per sign-in, its refresh tokens (by hash), their spending and revocation,
 * and each account's sign-outs (the latest signed expiry of a revoked sign-in).
 */
import { type Kysely, type QueryCreator, sql } from 'kysely';
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
 * The insert of a new token family, unless its account signed out through `signedExpiry` or later (a sign-in
 * expiring then or later was revoked: see `raiseSignedOutThrough`); then it inserts nothing.
 */
const insertFamilyUnlessSignedOut = (
  db: Kysely<Database> | QueryCreator<Database>,
  family: { id: string; account: string; created_at: string },
  signedExpiry: string,
) =>
  db
    .insertInto('token_families')
    .columns(['id', 'account', 'revoked_at', 'created_at'])
    .expression(
      db
        .selectNoFrom([
          sql.val(family.id).as('id'),
          sql.val(family.account).as('account'),
          sql.lit(null).as('revoked_at'),
          sql.val(family.created_at).as('created_at'),
        ])
        .where(({ exists, not, selectFrom }) =>
          not(
            exists(
              selectFrom('account_sign_outs')
                .select('account')
                .where('account', '=', family.account)
                .where('signed_out_through', '>=', signedExpiry),
            ),
          ),
        ),
    );

/**
 * A new token family with its first refresh token, written together or not at all, for a password signed
 * for `signedExpiry`: false (nothing written) when the account signed out through that expiry or later. On
 * PostgreSQL it is one statement (the family inserted in a `WITH`): one round trip and one commit, where a
 * transaction around two inserts takes four round trips. SQLite has no inserts in `WITH`; a transaction
 * there is in-process.
 */
export async function startTokenFamily(
  store: Store,
  account: string,
  token: RefreshTokenRow,
  signedExpiry: string,
): Promise<boolean> {
  const { db } = store;
  const family = { id: token.familyId, account, created_at: token.now };
  if (store.dialect === 'postgres') {
    const result = await db
      .with('family', (q) => insertFamilyUnlessSignedOut(q, family, signedExpiry).returning('id'))
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
      .executeTakeFirst();
    return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
  }
  return store.allOrNothing([
    insertFamilyUnlessSignedOut(db, family, signedExpiry).compile(),
    insertRefreshToken(db, token).compile(),
  ]);
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

/** The account of a family and what its password's signed expiry is made of (the sign-in's start, its claims). */
export async function signInOfFamily(
  db: Kysely<Database>,
  familyId: string,
): Promise<{ account: string; startedAt: string; claims: string } | null> {
  const row = await db
    .selectFrom('token_families as f')
    .innerJoin('refresh_tokens as r', 'r.family_id', 'f.id')
    .select(['f.account', 'f.created_at as startedAt', 'r.claims'])
    .where('f.id', '=', familyId)
    .limit(1)
    .executeTakeFirst();
  return row ?? null;
}

/**
 * Raises the account's sign-out expiry to `through` (never lowers it): from its commit on, every instance
 * refuses passwords of the account signed for an expiry at or before it (`startTokenFamily`).
 */
export async function raiseSignedOutThrough(
  db: Kysely<Database>,
  account: string,
  through: string,
  now: string,
): Promise<void> {
  await db
    .insertInto('account_sign_outs')
    .values({ account, signed_out_through: through, updated_at: now })
    .onConflict((oc) =>
      oc
        .column('account')
        .doUpdateSet({ signed_out_through: through, updated_at: now })
        .whereRef('account_sign_outs.signed_out_through', '<', 'excluded.signed_out_through'),
    )
    .execute();
}
