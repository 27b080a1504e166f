// What TypeScript says about the hooks: answers typed from the spec, wrong paths and parameters refused.
import type { components, GatewayError } from '@gateway/client';
import { gatewayKeys, useGatewayInfiniteQuery, useGatewayQuery } from '@gateway/react';

export function typed() {
  const list = useGatewayInfiniteQuery('/v1/movements', { params: { query: { limit: 20 } } });
  const movements: components['schemas']['Movement'][] = list.data?.pages.flatMap((page) => page.items) ?? [];
  const error: GatewayError | null = list.error;
  const trades = useGatewayInfiniteQuery(
    '/v1/addresses/{ledger_address}/trades/{amount_currency_id}/{price_currency_id}',
    {
      params: {
        path: {
          ledger_address: '3P9KR33QyXwfTXv8kKtNGZYtgKk3RXSUk36',
          amount_currency_id: 'WAVES',
          price_currency_id: 'USDT',
        },
      },
    },
  );
  const price: number | undefined = trades.data?.pages[0]?.items[0]?.price;
  return [movements, error, price, gatewayKeys.path('/v1/movements')];
}

export function wrong() {
  // @ts-expect-error: no such path
  useGatewayQuery('get', '/v1/nothing');
  // @ts-expect-error: a platform's id is a path parameter, required
  useGatewayQuery('get', '/v1/platforms/{id}');
  // @ts-expect-error: `after` is the infinite list's own
  useGatewayInfiniteQuery('/v1/movements', { params: { query: { after: 'x' } } });
  // @ts-expect-error: an offset list is no cursor list
  useGatewayInfiniteQuery('/v1/deposit/currencies');
  // @ts-expect-error: a movement's amount is a number
  useGatewayQuery('get', '/v1/movements/{id}', { params: { path: { id: 'x' } } }).data?.amount.toUpperCase();
  return gatewayKeys.path('/v1/movements');
}
