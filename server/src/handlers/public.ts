/** Platforms, trades and staking yields: public operations. */
import type { components, HandlerMap } from '@gateway/generated';
import { isLedgerAddress } from '@gateway/ledger';
import type { Context } from '../context.js';
import { normaliseTimestamp } from '../domain/time.js';
import { ApiError } from '../errors.js';
import { type Keyset, listTrades } from '../store/feeds.js';
import { listPlatforms } from '../store/terms.js';
import { cursorPageInfo, decodeAfter } from './paging.js';
import { catalogueAnswer, listOfDocuments, platform } from './present.js';

type Schemas = components['schemas'];

const invalid = (parameter: string, message: string) =>
  new ApiError('invalid_parameter', message, { details: { parameter } });

type PublicHandlers = Pick<HandlerMap<Context>, 'listPlatforms' | 'getPlatform' | 'listTrades' | 'getStakingYield'>;

export const publicHandlers: PublicHandlers = {
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
    const row = snapshot.platformById.get(params.id);
    if (!row) throw new ApiError('platform_not_found', undefined, { details: { platform: params.id } });
    return { status: 200, body: catalogueAnswer(snapshot, `platform|${row.id}`, () => platform(row)) };
  },

  async listTrades({ params, query }, context) {
    if (!isLedgerAddress(params.ledger_address, context.config.chainId)) {
      throw invalid('ledger_address', `ledger_address is not an address of the ${context.config.chainId} network`);
    }
    const from = query.timestamp__gte === undefined ? null : normaliseTimestamp(query.timestamp__gte);
    const before = query.timestamp__lt === undefined ? null : normaliseTimestamp(query.timestamp__lt);
    if (query.timestamp__gte !== undefined && from === null) {
      throw invalid('timestamp__gte', 'timestamp__gte must be an ISO 8601 date-time with a time zone');
    }
    if (query.timestamp__lt !== undefined && before === null) {
      throw invalid('timestamp__lt', 'timestamp__lt must be an ISO 8601 date-time with a time zone');
    }
    // A cursor belongs to one address, pair, range and order.
    const scope = [
      'trades',
      params.ledger_address,
      params.amount_currency_id,
      params.price_currency_id,
      from,
      before,
      query.sort,
    ].join('|');
    const after = decodeAfter(context, scope, query.after, 2) as Keyset | null;
    const page = await listTrades(context.store, {
      address: params.ledger_address,
      amountCurrencyId: params.amount_currency_id,
      priceCurrencyId: params.price_currency_id,
      from,
      before,
      sort: query.sort,
      limit: query.limit,
      after,
    });
    return {
      status: 200,
      body: listOfDocuments<Schemas['TradeList']>(
        cursorPageInfo(context, scope, page.hasNext, page.last),
        page.documents,
      ),
    };
  },

  async getStakingYield({ params }, context) {
    const apy = (await context.catalogue.get()).stakingYield.get(params.currency_id);
    if (apy === undefined) {
      throw new ApiError('staking_yield_not_found', undefined, { details: { currency: params.currency_id } });
    }
    return { status: 200, body: { type: 'apy', apy: Number(apy) } };
  },
};
