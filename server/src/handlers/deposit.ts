/** Deposit terms (public) and the signed-in account's deposit addresses. */
import type { HandlerMap } from '@gateway/generated';
import { type Context, callerOf, nowIso } from '../context.js';
import { depositAddress } from '../domain/deposit.js';
import { currencyList, currencyTerms, depositCurrency, termsOrNotFound } from '../domain/terms.js';

async function addresses(context: Context, currency: string, platform: string | 'default') {
  const { account } = callerOf(context);
  const { terms, address } = await depositAddress(context, account, currency, platform, nowIso(context));
  return {
    status: 200 as const,
    body: { type: 'deposit_addresses' as const, currency: depositCurrency(terms), deposit_addresses: [address] },
  };
}

export const depositHandlers: Pick<
  HandlerMap<Context>,
  | 'listDepositCurrencies'
  | 'getDepositCurrency'
  | 'getDepositCurrencyOnDefaultPlatform'
  | 'getDepositAddresses'
  | 'getDepositAddressesOnDefaultPlatform'
> = {
  async listDepositCurrencies({ query }, context) {
    return { status: 200, body: currencyList(await context.catalogue.get(), 'deposit', query, depositCurrency) };
  },
  async getDepositCurrency({ params }, context) {
    const snapshot = await context.catalogue.get();
    return {
      status: 200,
      body: currencyTerms(snapshot, 'deposit', params.currency, params.platform, depositCurrency),
    };
  },
  async getDepositCurrencyOnDefaultPlatform({ params }, context) {
    const snapshot = await context.catalogue.get();
    return { status: 200, body: depositCurrency(termsOrNotFound(snapshot, 'deposit', params.currency, 'default')) };
  },
  getDepositAddresses: ({ params }, context) => addresses(context, params.currency, params.platform),
  getDepositAddressesOnDefaultPlatform: ({ params }, context) => addresses(context, params.currency, 'default'),
};
