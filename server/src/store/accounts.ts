/**
 * Per-account state: deposit and proxy address allocations, and refresh-token families. Allocation is
 * "read, else insert the next index, retry on conflict": unique constraints decide races, so the same
 * account always gets the same address, and no two accounts share one, across instances too.
 */
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.js';
import type { Store } from './store.js';

const MAX_ATTEMPTS = 20;

/** True for a unique/primary-key violation on SQLite or PostgreSQL. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/** The account's deposit address on a platform, allocated at the platform's next child index on first use. */
export async function depositAddressOf(
  db: Kysely<Database>,
  account: string,
  platformId: string,
  derive: (index: number) => string,
  now: string,
): Promise<string> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const existing = await db
      .selectFrom('deposit_addresses')
      .select('address')
      .where('account', '=', account)
      .where('platform_id', '=', platformId)
      .executeTakeFirst();
    if (existing) return existing.address;
    const last = await db
      .selectFrom('deposit_addresses')
      .select((eb) => eb.fn.max('child_index').as('max'))
      .where('platform_id', '=', platformId)
      .executeTakeFirst();
    const index = last?.max === null || last?.max === undefined ? 0 : Number(last.max) + 1;
    try {
      await db
        .insertInto('deposit_addresses')
        .values({ account, platform_id: platformId, child_index: index, address: derive(index), created_at: now })
        .execute();
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      // Another request took this index or this account's row first: read again.
    }
  }
  throw new Error('deposit address allocation did not settle');
}

export interface WithdrawalRoute {
  account: string;
  currencyId: string;
  destination: string;
  platformId: string;
}

/** The proxy address of a withdrawal route, allocated at the next proxy index on first use. */
export async function proxyAddressOf(
  db: Kysely<Database>,
  route: WithdrawalRoute,
  derive: (index: number) => string,
  now: string,
): Promise<string> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const existing = await db
      .selectFrom('withdrawal_addresses')
      .select('proxy_address')
      .where('account', '=', route.account)
      .where('currency_id', '=', route.currencyId)
      .where('destination', '=', route.destination)
      .where('platform_id', '=', route.platformId)
      .executeTakeFirst();
    if (existing) return existing.proxy_address;
    const last = await db
      .selectFrom('withdrawal_addresses')
      .select((eb) => eb.fn.max('proxy_index').as('max'))
      .executeTakeFirst();
    // Nonce 0 is the seed's own first account; proxies start at 1.
    const index = last?.max === null || last?.max === undefined ? 1 : Number(last.max) + 1;
    try {
      await db
        .insertInto('withdrawal_addresses')
        .values({
          proxy_index: index,
          account: route.account,
          currency_id: route.currencyId,
          destination: route.destination,
          platform_id: route.platformId,
          proxy_address: derive(index),
          created_at: now,
        })
        .execute();
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
  }
  throw new Error('proxy address allocation did not settle');
}

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
 * inserts took four round trips and cost the gateway about 300 µs more CPU per sign-in. SQLite has no
 * inserts in `WITH`; a transaction there is in-process and costs nothing measurable.
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

/** Revokes a token family (OAuth 2.0 Security BCP: a spent refresh token presented again). */
export async function revokeTokenFamily(db: Kysely<Database>, familyId: string, now: string): Promise<void> {
  await db
    .updateTable('token_families')
    .set({ revoked_at: now })
    .where('id', '=', familyId)
    .where('revoked_at', 'is', null)
    .execute();
}
