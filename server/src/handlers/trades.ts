/** An address's trades for a pair: cursor pages, served as their stored documents (public). */
import { type components, type HandlerMap, operationMeta } from '@gateway/generated';
import type { Context } from '../context.js';
import { type Keyset, tradeFilter, tradesPage } from '../domain/trades.js';
import { listOfDocuments } from '../lib/json-text.js';
import { cursorPageInfo, decodeAfter } from './paging.js';

type Schemas = components['schemas'];
const maxBytes = operationMeta.listTrades.pageBytes;

export const tradesHandlers: Pick<HandlerMap<Context>, 'listTrades'> = {
  async listTrades({ params, query }, context) {
    const filter = tradeFilter(
      {
        address: params.ledger_address,
        amountCurrencyId: params.amount_currency_id,
        priceCurrencyId: params.price_currency_id,
        gte: query.timestamp__gte,
        lt: query.timestamp__lt,
        sort: query.sort,
      },
      context.config.chainId,
    );
    // A cursor belongs to one address, pair, range and order.
    const scope = [
      'trades',
      filter.address,
      filter.amountCurrencyId,
      filter.priceCurrencyId,
      filter.from,
      filter.before,
      filter.sort,
    ].join('|');
    const after = decodeAfter(context, scope, query.after, 2) as Keyset | null;
    const page = await tradesPage(context.store, { ...filter, limit: query.limit, maxBytes, after });
    return {
      status: 200,
      body: listOfDocuments<Schemas['TradeList']>(
        cursorPageInfo(context, scope, page.hasNext, page.last),
        page.documents,
      ),
    };
  },
};
