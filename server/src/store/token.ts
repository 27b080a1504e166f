/**
 * Refresh-token families: a family per sign-in, its refresh tokens (by hash), their spending and revocation,
 * and each account's sign-outs (the latest signed expiry of a revoked sign-in). A family has one live
 * (unspent) token at any time: every grant that stores a token spends the one before it, in one transaction
 * taken on the family's row.
 */
import { CompiledQuery, type Kysely, sql } from 'kysely';
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
 * A new token family, unless its account signed out through the password's signed expiry or later (a sign-in
 * expiring then or later was revoked: see `raiseSignedOutThrough`); then it inserts nothing. The grants' SQL
 * is written out once rather than built per grant: Kysely's building and compiling cost the gateway about
 * as much CPU per grant as the signing of the access token. Parameters: family id, account, created at,
 * signed expiry.
 */
const FAMILY_UNLESS_SIGNED_OUT = (id: string, account: string, createdAt: string, account2: string, expiry: string) =>
  `insert into token_families (id, account, revoked_at, created_at) select ${id}, ${account}, null, ${createdAt} ` +
  `where not exists (select 1 from account_sign_outs where account = ${account2} and signed_out_through >= ${expiry})`;
/** SQLite: the family (anonymous parameters, the account given twice), then its first token. */
export const SQLITE_FAMILY = FAMILY_UNLESS_SIGNED_OUT('?', '?', '?', '?', '?');
export const SQLITE_FIRST_TOKEN =
  'insert into refresh_tokens (token_hash, family_id, claims, expires_at, used_at, created_at) values (?, ?, ?, ?, null, ?)';
/** PostgreSQL: both in one statement, the family inserted in a `WITH` (parameters 5–7: hash, claims, expiry). */
export const POSTGRES_FAMILY_AND_TOKEN =
  `with family as (${FAMILY_UNLESS_SIGNED_OUT('$1::text', '$2::text', '$3::text', '$2::text', '$4::text')} returning id) ` +
  'insert into refresh_tokens (token_hash, family_id, claims, expires_at, used_at, created_at) ' +
  'select $5::text, family.id, $6::text, $7::text, null, $3::text from family returning family_id';

/**
 * A new token family with its first refresh token, written together or not at all, for a password signed
 * for `signedExpiry`: false (nothing written) when the account signed out through that expiry or later. On
 * PostgreSQL it is one statement, prepared once per connection (`firstColumn` names it): one round trip
 * and one commit, where a transaction around two inserts takes four round trips. SQLite has no inserts in
 * `WITH`; a transaction there is in-process.
 */
export async function startTokenFamily(
  store: Store,
  account: string,
  token: RefreshTokenRow,
  signedExpiry: string,
): Promise<boolean> {
  if (store.dialect === 'postgres') {
    const inserted = await store.firstColumn(
      CompiledQuery.raw(POSTGRES_FAMILY_AND_TOKEN, [
        token.familyId,
        account,
        token.now,
        signedExpiry,
        token.tokenHash,
        token.claims,
        token.expiresAt,
      ]),
    );
    return inserted.length > 0;
  }
  return store.allOrNothing([
    CompiledQuery.raw(SQLITE_FAMILY, [token.familyId, account, token.now, account, signedExpiry]),
    CompiledQuery.raw(SQLITE_FIRST_TOKEN, [token.tokenHash, token.familyId, token.claims, token.expiresAt, token.now]),
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
 * Takes the family's row for the rest of the transaction, unless it is revoked (then it changes no row):
 * the grants of one family write one after the other. PostgreSQL's read-committed statements each see what
 * committed before them, so a grant that waited here sees every token the one before it wrote. (The update
 * leaves `revoked_at` null: the revocation trigger fires only on a change to not null.) On SQLite the
 * transaction is alone in its process already.
 */
const takeFamily = (db: Kysely<Database>, familyId: string) =>
  db
    .updateTable('token_families')
    .set({ revoked_at: null })
    .where('id', '=', familyId)
    .where('revoked_at', 'is', null)
    .compile();

/**
 * Spends a refresh token and stores its successor, together or not at all: true when this call spent it.
 * The conditional update decides between concurrent spenders (exactly one wins), after the family is taken
 * (a revoked family changes nothing). A failure to store the successor leaves the token unspent, so its
 * holder can try again instead of having to sign in anew.
 */
export async function replaceRefreshToken(
  store: Store,
  tokenHash: string,
  successor: RefreshTokenRow,
): Promise<boolean> {
  const { db } = store;
  return store.allOrNothing([
    takeFamily(db, successor.familyId),
    db
      .updateTable('refresh_tokens')
      .set({ used_at: successor.now })
      .where('token_hash', '=', tokenHash)
      .where('used_at', 'is', null)
      .compile(),
    insertRefreshToken(db, successor).compile(),
  ]);
}

/**
 * The pair given for a spent token presented again within the reuse grace, without a fork: the family's
 * token that was live (the branch this one supersedes) is spent now, and `successor` becomes the one live
 * token, together or not at all, and not at all when the family is revoked (false). `replayedHash` is the
 * spent token presented: it is matched too, its spending time kept (`coalesce`), so that the update always
 * changes a row even when nothing else is unspent.
 */
export async function supersedeRefreshTokens(
  store: Store,
  replayedHash: string,
  successor: RefreshTokenRow,
): Promise<boolean> {
  const { db } = store;
  return store.allOrNothing([
    takeFamily(db, successor.familyId),
    db
      .updateTable('refresh_tokens')
      .set({ used_at: sql<string>`coalesce(used_at, ${successor.now})` })
      .where('family_id', '=', successor.familyId)
      .where((eb) => eb.or([eb('used_at', 'is', null), eb('token_hash', '=', replayedHash)]))
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
