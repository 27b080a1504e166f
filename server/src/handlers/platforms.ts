/** Platforms: cursor pages of the list and one platform (public). */
import { type components, type HandlerMap, operationMeta } from '@gateway/generated';
import type { Context } from '../context.js';
import { platformAnswer, platformOrNotFound, platformsPage } from '../domain/platforms.js';
import { listOfDocuments } from '../lib/json-text.js';
import { cursorPageInfo, decodeAfter } from './paging.js';

type Schemas = components['schemas'];
const maxBytes = operationMeta.listPlatforms.pageBytes;

export const platformsHandlers: Pick<HandlerMap<Context>, 'listPlatforms' | 'getPlatform'> = {
  async listPlatforms({ query }, context) {
    const after = decodeAfter(context, 'platforms', query.after, 1);
    const page = platformsPage(await context.catalogue.get(), {
      limit: query.limit,
      maxBytes,
      afterId: after ? String(after[0]) : null,
    });
    return {
      status: 200,
      body: listOfDocuments<Schemas['PlatformList']>(
        cursorPageInfo(context, 'platforms', page.hasNext, page.lastId === undefined ? undefined : [page.lastId]),
        page.documents,
      ),
    };
  },

  async getPlatform({ params }, context) {
    const snapshot = await context.catalogue.get();
    return { status: 200, body: platformAnswer(snapshot, platformOrNotFound(snapshot, params.id)) };
  },
};
