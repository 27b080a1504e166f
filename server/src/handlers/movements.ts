/** The signed-in account's movements: cursor pages and one movement, served as their stored documents. */
import { type components, type HandlerMap, operationMeta } from '@gateway/generated';
import { type Context, callerOf } from '../context.js';
import { type Keyset, movementOf, movementsPage } from '../domain/movements.js';
import { JsonText, listOfDocuments } from '../lib/json-text.js';
import { cursorPageInfo, decodeAfter } from './paging.js';

type Schemas = components['schemas'];
const maxBytes = operationMeta.listMovements.pageBytes;

export const movementsHandlers: Pick<HandlerMap<Context>, 'listMovements' | 'getMovement'> = {
  async listMovements({ query }, context) {
    const { account } = callerOf(context);
    const scope = `movements|${account}`;
    const after = decodeAfter(context, scope, query.after, 2) as Keyset | null;
    const page = await movementsPage(context.store, { account, limit: query.limit, maxBytes, after });
    return {
      status: 200,
      body: listOfDocuments<Schemas['MovementList']>(
        cursorPageInfo(context, scope, page.hasNext, page.last),
        page.documents,
      ),
    };
  },

  async getMovement({ params }, context) {
    const { account } = callerOf(context);
    return {
      status: 200,
      body: new JsonText<Schemas['Movement']>(await movementOf(context.store, account, params.id)),
    };
  },
};
