/** The signed-in account's deposit addresses, withdrawal (proxy) addresses and movements. */
import type { components, HandlerMap } from '@gateway/generated';
import { type Context, callerOf, nowIso } from '../context.js';
import { depositAddressFor, isLedgerPlatform, isValidDestination, proxyAddressFor } from '../domain/addresses.js';
import { ApiError } from '../errors.js';
import { depositAddressOf, proxyAddressOf } from '../store/accounts.js';
import { findMovementDocument, type Keyset, listMovements } from '../store/feeds.js';
import { cursorPageInfo, decodeAfter } from './paging.js';
import { depositCurrency, JsonText, listOfDocuments, withdrawalCurrency } from './present.js';
import { termsOrNotFound } from './terms.js';

type Schemas = components['schemas'];

async function platformAddressing(context: Context, platformId: string) {
  const platform = (await context.catalogue.get()).platformById.get(platformId);
  if (!platform) throw new ApiError('platform_not_found', undefined, { details: { platform: platformId } });
  return platform;
}

async function depositAddresses(context: Context, currency: string, platform: string | 'default') {
  const { account } = callerOf(context);
  const terms = await termsOrNotFound(context, 'deposit', currency, platform);
  if (terms.status !== 'active') {
    throw new ApiError('operation_disabled', `Deposit of ${currency} on ${terms.platform_id} is inactive`, {
      details: { currency, platform: terms.platform_id },
    });
  }
  const addressing = await platformAddressing(context, terms.platform_id);
  const address = isLedgerPlatform(addressing)
    ? account
    : await depositAddressOf(
        context.db,
        account,
        terms.platform_id,
        (index) => depositAddressFor(addressing, index),
        nowIso(context),
      );
  return {
    status: 200 as const,
    body: { type: 'deposit_addresses' as const, currency: depositCurrency(terms), deposit_addresses: [address] },
  };
}

async function withdrawalAddresses(
  context: Context,
  currency: string,
  destination: string,
  platform: string | 'default',
) {
  const { account } = callerOf(context);
  const terms = await termsOrNotFound(context, 'withdrawal', currency, platform);
  const addressing = await platformAddressing(context, terms.platform_id);
  if (!isValidDestination(addressing, destination, context.config.chainId)) {
    throw new ApiError('invalid_address', `address is not a valid ${terms.platform_id} address`, {
      details: { parameter: 'address', platform: terms.platform_id },
    });
  }
  if (terms.status !== 'active') {
    throw new ApiError('operation_disabled', `Withdrawal of ${currency} on ${terms.platform_id} is inactive`, {
      details: { currency, platform: terms.platform_id },
    });
  }
  const { chainId } = context.config;
  const proxy = isLedgerPlatform(addressing)
    ? destination
    : await proxyAddressOf(
        context.db,
        { account, currencyId: currency, destination, platformId: terms.platform_id },
        (index) => proxyAddressFor(context.proxySeed, index, chainId),
        nowIso(context),
      );
  return {
    status: 200 as const,
    body: { type: 'withdrawal_addresses' as const, currency: withdrawalCurrency(terms), proxy_addresses: [proxy] },
  };
}

type AccountHandlers = Pick<
  HandlerMap<Context>,
  | 'getDepositAddresses'
  | 'getDepositAddressesOnDefaultPlatform'
  | 'getWithdrawalAddresses'
  | 'getWithdrawalAddressesOnDefaultPlatform'
  | 'listMovements'
  | 'getMovement'
>;

export const accountHandlers: AccountHandlers = {
  getDepositAddresses: ({ params }, context) => depositAddresses(context, params.currency, params.platform),
  getDepositAddressesOnDefaultPlatform: ({ params }, context) => depositAddresses(context, params.currency, 'default'),
  getWithdrawalAddresses: ({ params }, context) =>
    withdrawalAddresses(context, params.currency, params.address, params.platform),
  getWithdrawalAddressesOnDefaultPlatform: ({ params }, context) =>
    withdrawalAddresses(context, params.currency, params.address, 'default'),

  async listMovements({ query }, context) {
    const { account } = callerOf(context);
    const scope = `movements|${account}`;
    const after = decodeAfter(context, scope, query.after, 2) as Keyset | null;
    const page = await listMovements(context.store, { account, limit: query.limit, after });
    return {
      status: 200,
      body: listOfDocuments<Schemas['MovementList']>(
        cursorPageInfo(context, scope, page.hasNext, page.last),
        page.documents,
      ),
    };
  },

  async getMovement({ params }, context) {
    const { account } = callerOf(context);
    const document = await findMovementDocument(context.db, account, params.id);
    if (document === null) throw new ApiError('movement_not_found');
    return { status: 200, body: new JsonText<Schemas['Movement']>(document) };
  },
};
