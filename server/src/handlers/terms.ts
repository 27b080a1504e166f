/** Deposit and withdrawal terms: the currency lists and the per-platform (and default-platform) terms. */
import type { HandlerMap } from '@gateway/generated';
import type { Context } from '../context.js';
import { ApiError } from '../errors.js';
import type { Direction } from '../store/schema.js';
import { type CatalogueSnapshot, findTerms, listTerms, type TermsRow } from '../store/terms.js';
import { catalogueAnswer, depositCurrency, withdrawalCurrency } from './present.js';

/** The terms of a currency on a platform (or its default one), or the 404 that says what is missing. */
export async function termsOrNotFound(
  context: Context,
  direction: Direction,
  currency: string,
  platform: string | 'default',
): Promise<TermsRow> {
  return termsIn(await context.catalogue.get(), direction, currency, platform);
}

/** `termsOrNotFound` in a snapshot the caller already holds. */
function termsIn(
  snapshot: CatalogueSnapshot,
  direction: Direction,
  currency: string,
  platform: string | 'default',
): TermsRow {
  const lookup = findTerms(snapshot, direction, currency, platform);
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

/** A page of the currency list of a direction, serialized once per catalogue snapshot. */
async function currencyList<Item>(
  context: Context,
  direction: Direction,
  query: { limit: number; offset: number },
  present: (row: TermsRow) => Item,
) {
  const snapshot = await context.catalogue.get();
  return catalogueAnswer(snapshot, `${direction}-currencies|${query.offset}|${query.limit}`, () => {
    const page = listTerms(snapshot, direction, query);
    return { type: 'list' as const, page_info: { has_next_page: page.hasNext }, items: page.rows.map(present) };
  });
}

/** The terms of a currency on a platform, serialized once per catalogue snapshot (or the 404). */
async function currencyTerms<Item>(
  context: Context,
  direction: Direction,
  currency: string,
  platform: string,
  present: (row: TermsRow) => Item,
) {
  const snapshot = await context.catalogue.get();
  const row = termsIn(snapshot, direction, currency, platform);
  return catalogueAnswer(snapshot, `${direction}|${currency}|${platform}`, () => present(row));
}

export const termsHandlers: TermsHandlers = {
  async listDepositCurrencies({ query }, context) {
    return { status: 200, body: await currencyList(context, 'deposit', query, depositCurrency) };
  },
  async getDepositCurrency({ params }, context) {
    return {
      status: 200,
      body: await currencyTerms(context, 'deposit', params.currency, params.platform, depositCurrency),
    };
  },
  async getDepositCurrencyOnDefaultPlatform({ params }, context) {
    return {
      status: 200,
      body: depositCurrency(await termsOrNotFound(context, 'deposit', params.currency, 'default')),
    };
  },
  async listWithdrawalCurrencies({ query }, context) {
    return { status: 200, body: await currencyList(context, 'withdrawal', query, withdrawalCurrency) };
  },
  async getWithdrawalCurrency({ params }, context) {
    return {
      status: 200,
      body: await currencyTerms(context, 'withdrawal', params.currency, params.platform, withdrawalCurrency),
    };
  },
  async getWithdrawalCurrencyOnDefaultPlatform({ params }, context) {
    return {
      status: 200,
      body: withdrawalCurrency(await termsOrNotFound(context, 'withdrawal', params.currency, 'default')),
    };
  },
};
