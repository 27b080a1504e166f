/** Deposit and withdrawal terms, platforms and staking yields: the catalogue, read. */
import type { Kysely } from 'kysely';
import type { Database, Direction } from './schema.js';

export interface TermsRow {
  direction: Direction;
  currency_id: string;
  platform_id: string;
  chain_asset_id: string;
  platform_asset_id: string;
  decimals: number;
  status: 'active' | 'inactive';
  min_amount: string;
  max_amount: string;
  fee_flat: string;
  fee_rate: string;
}

function termsQuery(db: Kysely<Database>, direction: Direction) {
  return db
    .selectFrom('currency_terms as t')
    .innerJoin('currencies as c', 'c.id', 't.currency_id')
    .select([
      't.direction',
      't.currency_id',
      't.platform_id',
      'c.chain_asset_id',
      't.platform_asset_id',
      'c.decimals',
      't.status',
      't.min_amount',
      't.max_amount',
      't.fee_flat',
      't.fee_rate',
    ])
    .where('t.direction', '=', direction);
}

/** A page of terms in (currency, platform) order, and whether more exist after it. */
export async function listTerms(
  db: Kysely<Database>,
  direction: Direction,
  page: { limit: number; offset: number },
): Promise<{ rows: TermsRow[]; hasNext: boolean }> {
  const rows = await termsQuery(db, direction)
    .orderBy('t.currency_id')
    .orderBy('t.platform_id')
    .limit(page.limit + 1)
    .offset(page.offset)
    .execute();
  return { rows: rows.slice(0, page.limit), hasNext: rows.length > page.limit };
}

export type TermsLookup =
  | { found: true; row: TermsRow }
  | { found: false; missing: 'currency' | 'platform' | 'currency_on_platform' };

/**
 * The terms of a currency on a platform (or on its default platform), or what is missing. One query when
 * the terms exist; the diagnosis of a miss costs more, and only then.
 */
export async function findTerms(
  db: Kysely<Database>,
  direction: Direction,
  currencyId: string,
  platformId: string | 'default',
): Promise<TermsLookup> {
  const query = termsQuery(db, direction).where('t.currency_id', '=', currencyId);
  const row = await (platformId === 'default'
    ? query.whereRef('t.platform_id', '=', 'c.default_platform_id')
    : query.where('t.platform_id', '=', platformId)
  ).executeTakeFirst();
  if (row) return { found: true, row };
  const currency = await db
    .selectFrom('currencies')
    .select(['id', 'default_platform_id'])
    .where('id', '=', currencyId)
    .executeTakeFirst();
  const offered = currency
    ? await db
        .selectFrom('currency_terms')
        .select('platform_id')
        .where('direction', '=', direction)
        .where('currency_id', '=', currencyId)
        .executeTakeFirst()
    : undefined;
  if (!currency || !offered) return { found: false, missing: 'currency' };
  const platform = platformId === 'default' ? currency.default_platform_id : platformId;
  const platformExists = await db.selectFrom('platforms').select('id').where('id', '=', platform).executeTakeFirst();
  return { found: false, missing: platformExists ? 'currency_on_platform' : 'platform' };
}

export interface PlatformRow {
  id: string;
  name: string;
  currencies: string[];
}

async function withCurrencies(db: Kysely<Database>, platforms: { id: string; name: string }[]): Promise<PlatformRow[]> {
  if (platforms.length === 0) return [];
  const pairs = await db
    .selectFrom('currency_terms')
    .select(['platform_id', 'currency_id'])
    .distinct()
    .where(
      'platform_id',
      'in',
      platforms.map((p) => p.id),
    )
    .orderBy('platform_id')
    .orderBy('currency_id')
    .execute();
  return platforms.map((p) => ({
    ...p,
    currencies: pairs.filter((pair) => pair.platform_id === p.id).map((pair) => pair.currency_id),
  }));
}

/** A page of platforms in id order after `afterId`, and whether more exist. */
export async function listPlatforms(
  db: Kysely<Database>,
  page: { limit: number; afterId: string | null },
): Promise<{ rows: PlatformRow[]; hasNext: boolean }> {
  let query = db
    .selectFrom('platforms')
    .select(['id', 'name'])
    .orderBy('id')
    .limit(page.limit + 1);
  if (page.afterId !== null) query = query.where('id', '>', page.afterId);
  const rows = await query.execute();
  return { rows: await withCurrencies(db, rows.slice(0, page.limit)), hasNext: rows.length > page.limit };
}

export async function findPlatform(db: Kysely<Database>, id: string): Promise<PlatformRow | undefined> {
  const row = await db.selectFrom('platforms').select(['id', 'name']).where('id', '=', id).executeTakeFirst();
  return row ? (await withCurrencies(db, [row]))[0] : undefined;
}

export async function findStakingYield(db: Kysely<Database>, currencyId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('staking_yields')
    .select('apy')
    .where('currency_id', '=', currencyId)
    .executeTakeFirst();
  return row?.apy;
}
