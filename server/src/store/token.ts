/**
 * Sign-ins (token families): their start with a first refresh token, their revocation, and each account's
 * sign-outs (the latest signed expiry of a revoked sign-in). Refresh tokens live in the family's row
 * (store/token-family.ts); those issued before migration 0011 are rows of `refresh_tokens`
 * (store/legacy-refresh-token.ts) until they expire.
 */
import { CompiledQuery, type Kysely } from 'kysely';
import type { Database, Store } from './schema.js';

/** A sign-in to start: its family, its first refresh token (generation 0) and when it ends. */
export interface NewSignIn {
  familyId: string;
  account: string;
  claims: string;
  chainHash: string;
  tokenHash: string;
  tokenExpiresAt: string;
  expiresAt: string;
  now: string;
}

/**
 * The sign-in with its first refresh token, unless its account signed out through the password's signed
 * expiry or later (a sign-in expiring then or later was revoked: see `raiseSignedOutThrough`); then it
 * inserts nothing. One statement, returning the family's id when it inserted it. The grants' SQL is written
 * out once rather than built per grant: Kysely's building and compiling cost the gateway about as much CPU
 * per grant as the signing of the access token. Parameters: family id, account, created at, claims, chain
 * hash, token hash, token expiry, sign-in end, account (again on SQLite), signed expiry.
 */
const SIGN_IN_UNLESS_SIGNED_OUT = (p: string[]) =>
  'insert into token_families (id, account, revoked_at, created_at, claims, chain_hash, generation, token_hash, ' +
  `token_expires_at, expires_at) select ${p[0]}, ${p[1]}, null, ${p.slice(2, 5).join(', ')}, 0, ${p.slice(5, 8).join(', ')} ` +
  `where not exists (select 1 from account_sign_outs where account = ${p[8]} and signed_out_through >= ${p[9]}) ` +
  'returning id';
export const SQLITE_SIGN_IN = SIGN_IN_UNLESS_SIGNED_OUT(Array(10).fill('?'));
/** PostgreSQL: numbered parameters, typed (a `select` without a table gives them no type of its own). */
export const POSTGRES_SIGN_IN = SIGN_IN_UNLESS_SIGNED_OUT([1, 2, 3, 4, 5, 6, 7, 8, 2, 9].map((n) => `$${n}::text`));

/**
 * Starts a sign-in for a password signed for `signedExpiry`: false (nothing written) when the account signed
 * out through that expiry or later. One statement on either store (on PostgreSQL prepared once per
 * connection: `firstColumn` names it): one round trip and one commit.
 */
export async function startTokenFamily(store: Store, signIn: NewSignIn, signedExpiry: string): Promise<boolean> {
  const values = [
    signIn.familyId,
    signIn.account,
    signIn.now,
    signIn.claims,
    signIn.chainHash,
    signIn.tokenHash,
    signIn.tokenExpiresAt,
    signIn.expiresAt,
  ];
  const inserted =
    store.dialect === 'postgres'
      ? await store.firstColumn(CompiledQuery.raw(POSTGRES_SIGN_IN, [...values, signedExpiry]))
      : await store.firstColumn(CompiledQuery.raw(SQLITE_SIGN_IN, [...values, signIn.account, signedExpiry]));
  return inserted.length > 0;
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

/**
 * The account of a family and what its password's signed expiry is made of (the sign-in's start, its claims:
 * in the family's row, or for a sign-in of the old form in any of its refresh tokens).
 */
export async function signInOfFamily(
  db: Kysely<Database>,
  familyId: string,
): Promise<{ account: string; startedAt: string; claims: string } | null> {
  const row = await db
    .selectFrom('token_families as f')
    .select((eb) => [
      'f.account',
      'f.created_at as startedAt',
      eb.fn
        .coalesce(
          'f.claims',
          eb.selectFrom('refresh_tokens as r').select('r.claims').whereRef('r.family_id', '=', 'f.id').limit(1),
        )
        .as('claims'),
    ])
    .where('f.id', '=', familyId)
    .executeTakeFirst();
  return row?.claims ? { account: row.account, startedAt: row.startedAt, claims: row.claims } : null;
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
