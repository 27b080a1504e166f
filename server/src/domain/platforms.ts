/** Platforms: pages of the list, one platform, and the resource. */
import type { components } from '@gateway/generated';
import { ApiError } from '../errors.js';
import type { CatalogueSnapshot, PlatformRow } from '../store/catalogue.js';

type Schemas = components['schemas'];

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
