/**
 * The catalogue: deposit and withdrawal terms, platforms and staking yields. Written by a catalogue load, in
 * one transaction (upserts, so loading the same file twice changes nothing, and every load bumps the
 * catalogue's version); read whole into a snapshot, which the domain keeps in memory.
 */
import type { Kysely } from 'kysely';
import type { Database, Direction } from './schema.js';

/** The terms of one direction of a currency on a platform, as a catalogue load gives them. */
export interface TermsEntry {
  status: 'active' | 'inactive';
  min: string;
  max: string;
  feeFlat: string;
  feeRate: string;
}

/** A validated catalogue, as a load writes it. */
export interface Catalogue {
  platforms: { id: string; name: string; addressKind: string; xpub: string; network: string | null }[];
  currencies: {
    id: string;
    chainAssetId: string;
    decimals: number;
    defaultPlatform: string;
    platforms: { platformId: string; platformAssetId: string; deposit?: TermsEntry; withdrawal?: TermsEntry }[];
  }[];
  staking: { currency: string; apy: string }[];
}

export class CatalogueConflict extends Error {}

export async function applyCatalogue(db: Kysely<Database>, catalogue: Catalogue): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (const p of catalogue.platforms) {
      const existing = await trx.selectFrom('platforms').select('xpub').where('id', '=', p.id).executeTakeFirst();
      if (existing && existing.xpub !== p.xpub) {
        const used = await trx
          .selectFrom('deposit_addresses')
          .select('address')
          .where('platform_id', '=', p.id)
          .executeTakeFirst();
        if (used) {
          throw new CatalogueConflict(
            `platforms (${p.id}).xpub: deposit addresses were already derived from another key; changing it would orphan them`,
          );
        }
      }
      const row = { id: p.id, name: p.name, address_kind: p.addressKind, xpub: p.xpub, network: p.network };
      await trx
        .insertInto('platforms')
        .values(row)
        .onConflict((oc) =>
          oc
            .column('id')
            .doUpdateSet({ name: row.name, address_kind: row.address_kind, xpub: row.xpub, network: row.network }),
        )
        .execute();
    }
    for (const c of catalogue.currencies) {
      const row = {
        id: c.id,
        chain_asset_id: c.chainAssetId,
        decimals: c.decimals,
        default_platform_id: c.defaultPlatform,
      };
      await trx
        .insertInto('currencies')
        .values(row)
        .onConflict((oc) =>
          oc.column('id').doUpdateSet({
            chain_asset_id: row.chain_asset_id,
            decimals: row.decimals,
            default_platform_id: row.default_platform_id,
          }),
        )
        .execute();
      for (const offer of c.platforms) {
        const entries: [Direction, TermsEntry | undefined][] = [
          ['deposit', offer.deposit],
          ['withdrawal', offer.withdrawal],
        ];
        for (const [direction, terms] of entries) {
          if (!terms) continue;
          const values = {
            platform_asset_id: offer.platformAssetId,
            status: terms.status,
            min_amount: terms.min,
            max_amount: terms.max,
            fee_flat: terms.feeFlat,
            fee_rate: terms.feeRate,
          };
          await trx
            .insertInto('currency_terms')
            .values({ direction, currency_id: c.id, platform_id: offer.platformId, ...values })
            .onConflict((oc) => oc.columns(['direction', 'currency_id', 'platform_id']).doUpdateSet(values))
            .execute();
        }
      }
    }
    await trx
      .updateTable('catalogue_version')
      .set((eb) => ({ version: eb('version', '+', 1) }))
      .where('id', '=', 1)
      .execute();
    for (const s of catalogue.staking) {
      await trx
        .insertInto('staking_yields')
        .values({ currency_id: s.currency, apy: s.apy })
        .onConflict((oc) => oc.column('currency_id').doUpdateSet({ apy: s.apy }))
        .execute();
    }
  });
}

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

/** The key of a currency's terms in a direction on a platform. */
export const termsKey = (direction: Direction, currency: string, platform: string) =>
  `${direction}|${currency}|${platform}`;
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
      termsByKey: new Map(terms.map((r) => [termsKey(r.direction, r.currency_id, r.platform_id), r])),
      defaultPlatform: new Map(currencies.map((c) => [c.id, c.default_platform_id])),
      offered: new Set(terms.map((r) => `${r.direction}|${r.currency_id}`)),
      platforms: platformRows,
      platformById: new Map(platformRows.map((p) => [p.id, p])),
      stakingYield: new Map(staking.map((s) => [s.currency_id, s.apy])),
    };
  });
}
