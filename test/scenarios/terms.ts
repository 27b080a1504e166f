import type { OperationId } from '@gateway/generated';
import { prefer, type Scenario } from '../src/scenario.js';

const deprecation = { deprecation: /^@\d+$/, link: /rel="successor-version"/ };

/** Deposit and withdrawal terms have the same shape of scenarios; `base` is `deposit` or `withdraw`. */
function termsScenarios(
  base: 'deposit' | 'withdraw',
  ids: { list: OperationId; one: OperationId; onDefault: OperationId },
): Scenario[] {
  const list = `/v1/${base}/currencies`;
  return [
    {
      name: `${base} currency list: first page`,
      operationId: ids.list,
      request: { path: list },
      expect: { status: 200 },
    },
    {
      name: `${base} currency list: limit and offset within bounds`,
      operationId: ids.list,
      request: { path: list, query: { limit: '2', offset: '1' } },
      expect: { status: 200 },
    },
    {
      name: `${base} currency list: limit 0 is refused`,
      operationId: ids.list,
      request: { path: list, query: { limit: '0' } },
      expect: { status: 400, code: 10201 },
    },
    {
      name: `${base} currency list: limit 101 is refused`,
      operationId: ids.list,
      request: { path: list, query: { limit: '101' } },
      expect: { status: 400, code: 10201 },
    },
    {
      name: `${base} currency list: a negative offset is refused`,
      operationId: ids.list,
      request: { path: list, query: { offset: '-1' } },
      expect: { status: 400, code: 10201 },
    },
    {
      name: `${base} currency list: a non-numeric limit is refused`,
      operationId: ids.list,
      request: { path: list, query: { limit: 'ten' } },
      expect: { status: 400, code: 10201 },
    },
    {
      name: `${base} terms of USDT on ETH`,
      operationId: ids.one,
      request: { path: `${list}/USDT/ETH` },
      expect: { status: 200 },
    },
    {
      name: `${base} terms of an unknown currency: 404`,
      operationId: ids.one,
      request: { path: `${list}/NOPE/ETH`, headers: prefer(404) },
      expect: { status: 404, code: 10401 },
    },
    {
      name: `${base} terms on an unknown platform: 404`,
      operationId: ids.one,
      request: { path: `${list}/USDT/SOL`, headers: prefer(404) },
      expect: { status: 404, code: 10402 },
    },
    {
      name: `${base} terms of a currency not offered on the platform: 404`,
      operationId: ids.one,
      request: { path: `${list}/BTC/ETH`, headers: prefer(404) },
      expect: { status: 404, code: 10403 },
    },
    {
      name: `${base} terms with a malformed ticker: 400`,
      operationId: ids.one,
      request: { path: `${list}/US%24T/ETH` },
      expect: { status: 400, code: 10201 },
    },
    {
      name: `${base} terms on the default platform (deprecated) carry Deprecation and Link`,
      operationId: ids.onDefault,
      request: { path: `${list}/USDT` },
      expect: { status: 200, headers: deprecation },
    },
    {
      name: `${base} terms on the default platform of an unknown currency: 404`,
      operationId: ids.onDefault,
      request: { path: `${list}/NOPE`, headers: prefer(404) },
      expect: { status: 404, code: 10401 },
    },
  ];
}

export const termsScenarioList: Scenario[] = [
  ...termsScenarios('deposit', {
    list: 'listDepositCurrencies',
    one: 'getDepositCurrency',
    onDefault: 'getDepositCurrencyOnDefaultPlatform',
  }),
  ...termsScenarios('withdraw', {
    list: 'listWithdrawalCurrencies',
    one: 'getWithdrawalCurrency',
    onDefault: 'getWithdrawalCurrencyOnDefaultPlatform',
  }),
];
