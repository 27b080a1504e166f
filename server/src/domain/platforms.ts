/** Platforms: pages of the list, one platform, and the resource. */
import type { components } from '@gateway/generated';
import { ApiError } from '../errors.js';
import type { JsonText } from '../lib/json-text.js';
import { itemsWithin } from '../lib/page-bytes.js';
import type { CatalogueSnapshot, PlatformRow } from '../store/catalogue.js';
import { catalogueAnswer } from './catalogue-cache.js';

type Schemas = components['schemas'];

/** A page of platforms: each one's JSON text, the id of the last, and whether more follow. */
export interface PlatformPage {
  documents: readonly string[];
  lastId: string | undefined;
  hasNext: boolean;
}

/**
 * A page of platforms in id order after `afterId`, of at most `limit` platforms and `maxBytes` bytes
 * (lib/page-bytes.ts). Each platform is serialized once per catalogue snapshot.
 */
export function platformsPage(
  catalogue: CatalogueSnapshot,
  page: { limit: number; maxBytes: number; afterId: string | null },
): PlatformPage {
  const all = catalogue.platforms;
  const { afterId } = page;
  const start = afterId === null ? 0 : all.findIndex((p) => p.id > afterId);
  const from = start < 0 ? all.length : start;
  // One more than the limit: the bytes may end the page before it.
  const rows = all.slice(from, from + page.limit + 1);
  const texts = rows.map((row) => platformJson(catalogue, row));
  const kept = itemsWithin(texts, page.limit, page.maxBytes);
  return { documents: texts.slice(0, kept), lastId: rows[kept - 1]?.id, hasNext: from + kept < all.length };
}

/**
 * A platform's answer, serialized once per snapshot: `GET /v1/platforms/{id}` sends it as it is, and the
 * list's pages are made of the same texts.
 */
export const platformAnswer = (catalogue: CatalogueSnapshot, row: PlatformRow): JsonText<Schemas['Platform']> =>
  catalogueAnswer(catalogue, `platform|${row.id}`, () => platform(row));

/** A platform's JSON text (its answer's). */
export const platformJson = (catalogue: CatalogueSnapshot, row: PlatformRow): string =>
  platformAnswer(catalogue, row).json;

export const platform = (row: PlatformRow): Schemas['Platform'] => ({
  type: 'platform',
  id: row.id,
  name: row.name,
  currencies: row.currencies,
});

/** The platform of an id, or the 404 that says so. */
export function platformOrNotFound(snapshot: CatalogueSnapshot, id: string): PlatformRow {
  const row = snapshot.platformById.get(id);
  if (!row) throw new ApiError('platform_not_found', undefined, { details: { platform: id } });
  return row;
}
