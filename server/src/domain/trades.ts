/** An address's trades for a pair: the filter a request gives, checked, and pages in either order. */
import { isLedgerAddress } from '@gateway/ledger';
import { ApiError } from '../errors.js';
import { normaliseTimestamp } from '../lib/time.js';
import type { DocumentPage, PageSource, SortOrder } from '../store/pages.js';
import { listTrades, type TradeQuery } from '../store/trades.js';

export type { Keyset } from '../store/pages.js';

/** What a request asks of the trades: the page's size and position come on top. */
export type TradeFilter = Omit<TradeQuery, 'limit' | 'maxBytes' | 'after'>;

const invalid = (parameter: string, message: string) =>
  new ApiError('invalid_parameter', message, { details: { parameter } });

/** The filter of a trades request: a ledger address of this network and times with a time zone. */
export function tradeFilter(
  request: {
    address: string;
    amountCurrencyId: string;
    priceCurrencyId: string;
    gte: string | undefined;
    lt: string | undefined;
    sort: SortOrder;
  },
  chainId: 'W' | 'T',
): TradeFilter {
  if (!isLedgerAddress(request.address, chainId)) {
    throw invalid('ledger_address', `ledger_address is not an address of the ${chainId} network`);
  }
  const from = request.gte === undefined ? null : normaliseTimestamp(request.gte);
  const before = request.lt === undefined ? null : normaliseTimestamp(request.lt);
  if (request.gte !== undefined && from === null) {
    throw invalid('timestamp__gte', 'timestamp__gte must be an ISO 8601 date-time with a time zone');
  }
  if (request.lt !== undefined && before === null) {
    throw invalid('timestamp__lt', 'timestamp__lt must be an ISO 8601 date-time with a time zone');
  }
  const { address, amountCurrencyId, priceCurrencyId, sort } = request;
  return { address, amountCurrencyId, priceCurrencyId, from, before, sort };
}

/** A page of the filter's trades, by (timestamp, id) in its order. */
export function tradesPage(store: PageSource, query: TradeQuery): Promise<DocumentPage> {
  return listTrades(store, query);
}
