/**
 * A sign-in's refresh tokens in its family's row (migration 0011): the live token's generation and hash, the
 * tokens spent within the reuse grace, and when the sign-in ends. A refresh is one compare-and-set of the row
 * on its generation: of two refreshes that read the same generation, one writes and the other reads again
 * (on PostgreSQL the second update waits for the first's row lock, then finds the generation changed). Rows
 * per sign-in: one, whatever the number of its refreshes.
 */
import type { Kysely } from 'kysely';
import type { Database, Store } from './schema.js';

/** A token spent within the reuse grace: its generation, the hash of its secret, when it was spent and expires. */
export interface SpentToken {
  generation: number;
  hash: string;
  spentAt: string;
  expiresAt: string;
}

/** A sign-in as its family's row holds it. `chainHash` and `generation` are null for a sign-in of the old form. */
export interface SignIn {
  familyId: string;
  account: string;
  revokedAt: string | null;
  createdAt: string;
  claims: string | null;
  chainHash: string | null;
  generation: number | null;
  tokenHash: string | null;
  tokenExpiresAt: string | null;
  spent: SpentToken[];
}

/**
 * `spent_recently` as stored: `[generation, hash, spent at, expires at]` each, the times in milliseconds
 * since the epoch (a spent token outlives its grace in the row of a sign-in refreshed no more).
 */
type StoredSpent = [number, string, number, number];

const storedSpent = (spent: readonly SpentToken[]) =>
  JSON.stringify(spent.map((s): StoredSpent => [s.generation, s.hash, Date.parse(s.spentAt), Date.parse(s.expiresAt)]));

const spentOf = (stored: string): SpentToken[] =>
  (JSON.parse(stored) as StoredSpent[]).map(([generation, hash, spentAt, expiresAt]) => ({
    generation,
    hash,
    spentAt: new Date(spentAt).toISOString(),
    expiresAt: new Date(expiresAt).toISOString(),
  }));

export async function readSignIn(db: Kysely<Database>, familyId: string): Promise<SignIn | null> {
  const row = await db
    .selectFrom('token_families')
    .select([
      'account',
      'revoked_at',
      'created_at',
      'claims',
      'chain_hash',
      'generation',
      'token_hash',
      'token_expires_at',
      'spent_recently',
    ])
    .where('id', '=', familyId)
    .executeTakeFirst();
  if (!row) return null;
  return {
    familyId,
    account: row.account,
    revokedAt: row.revoked_at,
    createdAt: row.created_at,
    claims: row.claims,
    chainHash: row.chain_hash,
    generation: row.generation === null ? null : Number(row.generation),
    tokenHash: row.token_hash,
    tokenExpiresAt: row.token_expires_at,
    spent: row.spent_recently ? spentOf(row.spent_recently) : [],
  };
}

/** The sign-in's state once a token is issued: the new live token and what the row keeps of the others. */
export interface NextToken {
  claims: string;
  chainHash: string;
  generation: number;
  tokenHash: string;
  tokenExpiresAt: string;
  spent: readonly SpentToken[];
  /** When nothing the sign-in issued works any more (the later of the token's expiry and its access token's). */
  expiresAt: string;
}

/**
 * The write that issues `next` if the sign-in is not revoked and its live generation is still `from` (null:
 * still of the old form); it changes no row otherwise.
 */
export const advanceSignIn = (db: Kysely<Database>, familyId: string, from: number | null, next: NextToken) =>
  db
    .updateTable('token_families')
    .set({
      claims: next.claims,
      chain_hash: next.chainHash,
      generation: next.generation,
      token_hash: next.tokenHash,
      token_expires_at: next.tokenExpiresAt,
      spent_recently: next.spent.length > 0 ? storedSpent(next.spent) : null,
      expires_at: next.expiresAt,
    })
    .where('id', '=', familyId)
    .where('revoked_at', 'is', null)
    .where('generation', from === null ? 'is' : '=', from);

/** Issues `next` (see `advanceSignIn`): true when this call wrote it. One statement, one round trip. */
export async function issueNextToken(store: Store, familyId: string, from: number, next: NextToken): Promise<boolean> {
  const result = await advanceSignIn(store.db, familyId, from, next).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
