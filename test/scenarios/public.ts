import { prefer, type Scenario } from '../src/scenario.js';

const trades = '/v1/addresses/3P9KR33QyXwfTXv8kKtNGZYtgKk3RXSUk36/trades/WAVES/USDT';

export const publicScenarios: Scenario[] = [
  {
    name: 'platforms, first page',
    operationId: 'listPlatforms',
    request: { path: '/v1/platforms' },
    expect: { status: 200 },
  },
  {
    name: 'platforms with a token that is not valid (deployed clients send one): still public',
    operationId: 'listPlatforms',
    request: { path: '/v1/platforms', auth: 'bad-token' },
    expect: { status: 200 },
  },
  {
    name: 'platforms with limit 0: 400',
    operationId: 'listPlatforms',
    request: { path: '/v1/platforms', query: { limit: '0' } },
    expect: { status: 400, code: 10201 },
  },
  {
    name: 'platforms with a forged cursor: 400',
    operationId: 'listPlatforms',
    request: { path: '/v1/platforms', query: { after: 'Zm9yZ2Vk' }, headers: prefer(400) },
    expect: { status: 400, code: 10206 },
  },
  { name: 'platform ETH', operationId: 'getPlatform', request: { path: '/v1/platforms/ETH' }, expect: { status: 200 } },
  {
    name: 'an unknown platform: 404',
    operationId: 'getPlatform',
    request: { path: '/v1/platforms/SOL', headers: prefer(404) },
    expect: { status: 404, code: 10402 },
  },
  {
    name: 'DELETE on a platform is not allowed',
    operationId: 'getPlatform',
    request: { method: 'DELETE', path: '/v1/platforms/ETH' },
    expect: { status: 405, code: 10700 },
    only: 'server',
  },
  {
    name: 'a platform asked for as HTML: 406',
    operationId: 'getPlatform',
    request: { path: '/v1/platforms/ETH', headers: { Accept: 'text/html' } },
    expect: { status: 406, code: 10900 },
    only: 'server',
  },
  {
    name: 'trades of an address for a pair',
    operationId: 'listTrades',
    request: { path: trades },
    expect: { status: 200 },
  },
  {
    name: 'trades in a time range, oldest first, 2 a page',
    operationId: 'listTrades',
    request: {
      path: trades,
      query: {
        timestamp__gte: '2021-08-01T00:00:00Z',
        timestamp__lt: '2021-09-01T00:00:00+02:00',
        sort: 'asc',
        limit: '2',
      },
    },
    expect: { status: 200 },
  },
  {
    name: 'trades of an invalid ledger address: 400',
    operationId: 'listTrades',
    request: { path: '/v1/addresses/3P9KR33QyXwfTXv8kKtNGZ/trades/WAVES/USDT' },
    expect: { status: 400, code: 10201 },
  },
  {
    name: 'trades with a time that is not ISO 8601: 400',
    operationId: 'listTrades',
    request: { path: trades, query: { timestamp__gte: 'yesterday' } },
    expect: { status: 400, code: 10201 },
  },
  {
    name: 'trades with an unknown sort: 400',
    operationId: 'listTrades',
    request: { path: trades, query: { sort: 'up' } },
    expect: { status: 400, code: 10201 },
  },
  {
    name: 'trades with limit 1001: 400',
    operationId: 'listTrades',
    request: { path: trades, query: { limit: '1001' } },
    expect: { status: 400, code: 10201 },
  },
  {
    name: 'staking yield of WAVES',
    operationId: 'getStakingYield',
    request: { path: '/v1/apy/staking/WAVES' },
    expect: { status: 200 },
  },
  {
    name: 'staking yield of a token without one: 404',
    operationId: 'getStakingYield',
    request: { path: '/v1/apy/staking/USDT', headers: prefer(404) },
    expect: { status: 404, code: 10405 },
  },
  {
    name: 'staking yield with a malformed ticker: 400',
    operationId: 'getStakingYield',
    request: { path: '/v1/apy/staking/W%20AVES' },
    expect: { status: 400, code: 10201 },
  },
  {
    name: 'an unknown route: 404',
    operationId: null,
    request: { path: '/v1/nothing/here' },
    expect: { status: 404, code: 10400 },
    only: 'server',
  },
];
