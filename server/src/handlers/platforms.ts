/** Platforms: cursor pages of the list and one platform (public). */
import type { HandlerMap } from '@gateway/generated';
import type { Context } from '../context.js';
import { catalogueAnswer } from '../domain/catalogue-cache.js';
import { listPlatforms, platform, platformOrNotFound } from '../domain/platforms.js';
import { cursorPageInfo, decodeAfter } from './paging.js';

export const platformsHandlers: Pick<HandlerMap<Context>, 'listPlatforms' | 'getPlatform'> = {
  async listPlatforms({ query }, context) {
    const after = decodeAfter(context, 'platforms', query.after, 1);
    const page = listPlatforms(await context.catalogue.get(), {
      limit: query.limit,
      afterId: after ? String(after[0]) : null,
    });
    const last = page.rows.at(-1);
    return {
      status: 200,
      body: {
        type: 'list',
        page_info: cursorPageInfo(context, 'platforms', page.hasNext, last && [last.id]),
        items: page.rows.map(platform),
      },
    };
  },

  async getPlatform({ params }, context) {
    const snapshot = await context.catalogue.get();
    const row = platformOrNotFound(snapshot, params.id);
    return { status: 200, body: catalogueAnswer(snapshot, `platform|${row.id}`, () => platform(row)) };
  },
};
