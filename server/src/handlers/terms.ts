/** Deposit and withdrawal terms: the currency lists and the per-platform (and default-platform) terms. */
import type { HandlerMap } from '@gateway/generated';
import type { Context } from '../context.js';
import { ApiError } from '../errors.js';
import type { Direction } from '../store/schema.js';
import { findTerms, listTerms, type TermsRow } from '../store/terms.js';
import { depositCurrency, withdrawalCurrency } from './present.js';

/** The terms of a currency on a platform (or its default one), or the 404 that says what is missing. */
export async function termsOrNotFound(
  context: Context,
  direction: Direction,
  currency: string,
  platform: string | 'default',
): Promise<TermsRow> {
  const lookup = findTerms(await context.catalogue.get(), direction, currency, platform);
  if (lookup.found) return lookup.row;
  switch (lookup.missing) {
    case 'currency':
      throw new ApiError('currency_not_found', undefined, { details: { currency } });
    case 'platform':
      throw new ApiError('platform_not_found', undefined, { details: { platform } });
    default:
      throw new ApiError('currency_not_on_platform', undefined, { details: { currency, platform } });
  }
}

type TermsHandlers = Pick<
  HandlerMap<Context>,
  | 'listDepositCurrencies'
  | 'getDepositCurrency'
  | 'getDepositCurrencyOnDefaultPlatform'
  | 'listWithdrawalCurrencies'
  | 'getWithdrawalCurrency'
  | 'getWithdrawalCurrencyOnDefaultPlatform'
>;

export const termsHandlers: TermsHandlers = {
  async listDepositCurrencies({ query }, context) {
    const page = listTerms(await context.catalogue.get(), 'deposit', query);
    return {
      status: 200,
      body: { type: 'list', page_info: { has_next_page: page.hasNext }, items: page.rows.map(depositCurrency) },
    };
  },
  async getDepositCurrency({ params }, context) {
    return {
      status: 200,
      body: depositCurrency(await termsOrNotFound(context, 'deposit', params.currency, params.platform)),
    };
  },
  async getDepositCurrencyOnDefaultPlatform({ params }, context) {
    return {
      status: 200,
      body: depositCurrency(await termsOrNotFound(context, 'deposit', params.currency, 'default')),
    };
  },
  async listWithdrawalCurrencies({ query }, context) {
    const page = listTerms(await context.catalogue.get(), 'withdrawal', query);
    return {
      status: 200,
      body: { type: 'list', page_info: { has_next_page: page.hasNext }, items: page.rows.map(withdrawalCurrency) },
    };
  },
  async getWithdrawalCurrency({ params }, context) {
    return {
      status: 200,
      body: withdrawalCurrency(await termsOrNotFound(context, 'withdrawal', params.currency, params.platform)),
    };
  },
  async getWithdrawalCurrencyOnDefaultPlatform({ params }, context) {
    return {
      status: 200,
      body: withdrawalCurrency(await termsOrNotFound(context, 'withdrawal', params.currency, 'default')),
    };
  },
};
