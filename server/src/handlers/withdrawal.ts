/** Withdrawal terms (public) and the signed-in account's withdrawal (proxy) addresses. */
import type { HandlerMap } from '@gateway/generated';
import { type Context, callerOf, nowIso } from '../context.js';
import { currencyList, currencyTerms, termsOrNotFound, withdrawalCurrency } from '../domain/terms.js';
import { withdrawalAddress } from '../domain/withdrawal.js';

async function addresses(context: Context, currency: string, destination: string, platform: string | 'default') {
  const { account } = callerOf(context);
  const { terms, address } = await withdrawalAddress(
    context,
    { account, currency, destination, platform },
    nowIso(context),
  );
  return {
    status: 200 as const,
    body: { type: 'withdrawal_addresses' as const, currency: withdrawalCurrency(terms), proxy_addresses: [address] },
  };
}

export const withdrawalHandlers: Pick<
  HandlerMap<Context>,
  | 'listWithdrawalCurrencies'
  | 'getWithdrawalCurrency'
  | 'getWithdrawalCurrencyOnDefaultPlatform'
  | 'getWithdrawalAddresses'
  | 'getWithdrawalAddressesOnDefaultPlatform'
> = {
  async listWithdrawalCurrencies({ query }, context) {
    return {
      status: 200,
      body: currencyList(await context.catalogue.get(), 'withdrawal', query, withdrawalCurrency),
    };
  },
  async getWithdrawalCurrency({ params }, context) {
    const snapshot = await context.catalogue.get();
    return {
      status: 200,
      body: currencyTerms(snapshot, 'withdrawal', params.currency, params.platform, withdrawalCurrency),
    };
  },
  async getWithdrawalCurrencyOnDefaultPlatform({ params }, context) {
    const snapshot = await context.catalogue.get();
    return {
      status: 200,
      body: withdrawalCurrency(termsOrNotFound(snapshot, 'withdrawal', params.currency, 'default')),
    };
  },
  getWithdrawalAddresses: ({ params }, context) => addresses(context, params.currency, params.address, params.platform),
  getWithdrawalAddressesOnDefaultPlatform: ({ params }, context) =>
    addresses(context, params.currency, params.address, 'default'),
};
