/** Writes a validated catalogue in one transaction: upserts, so loading the same file twice changes nothing. */
import type { Kysely } from 'kysely';
import type { Catalogue, TermsEntry } from '../domain/catalogue.js';
import type { Database, Direction } from './schema.js';

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
