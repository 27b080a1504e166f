/**
 * The catalogue, read: deposit and withdrawal terms, platforms and staking yields. Public reads are served
 * from an in-memory snapshot of it; the snapshot is reloaded when the catalogue's version changes (every
 * catalogue load bumps it), which each instance checks at most once a second.
 */
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

export interface PlatformRow {
  id: string;
  name: string;
  currencies: string[];
  address_kind: string;
  xpub: string;
  network: string | null;
}

export interface CatalogueSnapshot {
  readonly version: number;
  /** Terms by direction, in (currency, platform) order. */
  readonly terms: Readonly<Record<Direction, readonly TermsRow[]>>;
  readonly termsByKey: ReadonlyMap<string, TermsRow>;
  readonly defaultPlatform: ReadonlyMap<string, string>;
  /** `direction|currency` of every currency with terms in that direction. */
  readonly offered: ReadonlySet<string>;
  /** Platforms in id order, with the currencies each supports. */
  readonly platforms: readonly PlatformRow[];
  readonly platformById: ReadonlyMap<string, PlatformRow>;
  readonly stakingYield: ReadonlyMap<string, string>;
}

const key = (direction: Direction, currency: string, platform: string) => `${direction}|${currency}|${platform}`;
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export async function catalogueVersion(db: Kysely<Database>): Promise<number> {
  const row = await db.selectFrom('catalogue_version').select('version').where('id', '=', 1).executeTakeFirst();
  return row?.version ?? 0;
}

/** Reads the whole catalogue (small: platforms × currencies) into a snapshot. */
export async function loadCatalogueSnapshot(db: Kysely<Database>): Promise<CatalogueSnapshot> {
  return db.transaction().execute(async (trx) => {
    const version = await catalogueVersion(trx);
    const terms = await trx
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
      .execute();
    // Ordered here, by code point, so that SQLite and PostgreSQL collations cannot disagree.
    terms.sort((a, b) => byText(a.currency_id, b.currency_id) || byText(a.platform_id, b.platform_id));
    const currencies = await trx.selectFrom('currencies').select(['id', 'default_platform_id']).execute();
    const platforms = await trx
      .selectFrom('platforms')
      .select(['id', 'name', 'address_kind', 'xpub', 'network'])
      .execute();
    platforms.sort((a, b) => byText(a.id, b.id));
    const staking = await trx.selectFrom('staking_yields').select(['currency_id', 'apy']).execute();
    const supported = new Map<string, Set<string>>();
    for (const row of terms)
      supported.set(row.platform_id, (supported.get(row.platform_id) ?? new Set()).add(row.currency_id));
    const platformRows = platforms.map((p) => ({ ...p, currencies: [...(supported.get(p.id) ?? [])].sort(byText) }));
    return {
      version,
      terms: {
        deposit: terms.filter((r) => r.direction === 'deposit'),
        withdrawal: terms.filter((r) => r.direction === 'withdrawal'),
      },
      termsByKey: new Map(terms.map((r) => [key(r.direction, r.currency_id, r.platform_id), r])),
      defaultPlatform: new Map(currencies.map((c) => [c.id, c.default_platform_id])),
      offered: new Set(terms.map((r) => `${r.direction}|${r.currency_id}`)),
      platforms: platformRows,
      platformById: new Map(platformRows.map((p) => [p.id, p])),
      stakingYield: new Map(staking.map((s) => [s.currency_id, s.apy])),
    };
  });
}

export interface CatalogueCache {
  get(): Promise<CatalogueSnapshot>;
}

/** The snapshot, rechecking the catalogue's version at most every `maxAgeMs` (by `now`, milliseconds). */
export function createCatalogueCache(db: Kysely<Database>, now: () => number, maxAgeMs = 1000): CatalogueCache {
  let snapshot: CatalogueSnapshot | null = null;
  let checkedAt = Number.NEGATIVE_INFINITY;
  let pending: Promise<CatalogueSnapshot> | null = null;
  const refresh = async (): Promise<CatalogueSnapshot> => {
    const version = await catalogueVersion(db);
    if (!snapshot || snapshot.version !== version) snapshot = await loadCatalogueSnapshot(db);
    checkedAt = now();
    return snapshot;
  };
  return {
    get() {
      if (snapshot && now() - checkedAt < maxAgeMs) return Promise.resolve(snapshot);
      pending ??= refresh().finally(() => {
        pending = null;
      });
      return pending;
    },
  };
}

/** A page of terms in (currency, platform) order, and whether more exist after it. */
export function listTerms(
  catalogue: CatalogueSnapshot,
  direction: Direction,
  page: { limit: number; offset: number },
): { rows: readonly TermsRow[]; hasNext: boolean } {
  const all = catalogue.terms[direction];
  return { rows: all.slice(page.offset, page.offset + page.limit), hasNext: page.offset + page.limit < all.length };
}

export type TermsLookup =
  | { found: true; row: TermsRow }
  | { found: false; missing: 'currency' | 'platform' | 'currency_on_platform' };

/** The terms of a currency on a platform (or on its default platform), or what is missing. */
export function findTerms(
  catalogue: CatalogueSnapshot,
  direction: Direction,
  currencyId: string,
  platformId: string | 'default',
): TermsLookup {
  const defaultPlatform = catalogue.defaultPlatform.get(currencyId);
  if (defaultPlatform === undefined || !catalogue.offered.has(`${direction}|${currencyId}`)) {
    return { found: false, missing: 'currency' };
  }
  const platform = platformId === 'default' ? defaultPlatform : platformId;
  const row = catalogue.termsByKey.get(key(direction, currencyId, platform));
  if (row) return { found: true, row };
  return { found: false, missing: catalogue.platformById.has(platform) ? 'currency_on_platform' : 'platform' };
}

/** A page of platforms in id order after `afterId`, and whether more exist. */
export function listPlatforms(
  catalogue: CatalogueSnapshot,
  page: { limit: number; afterId: string | null },
): { rows: readonly PlatformRow[]; hasNext: boolean } {
  const all = catalogue.platforms;
  const { afterId } = page;
  const start = afterId === null ? 0 : all.findIndex((p) => p.id > afterId);
  const from = start < 0 ? all.length : start;
  return { rows: all.slice(from, from + page.limit), hasNext: from + page.limit < all.length };
}
