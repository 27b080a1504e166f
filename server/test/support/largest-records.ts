/**
 * The largest records the spec allows, and records one over each of its bounds: every number is read from
 * the spec's record schemas, so these follow the spec when a bound changes. Shared by the server's tests and
 * the attack suite (test/src/largest-records.ts).
 */
import { recordSchemas } from '@gateway/generated';

// biome-ignore lint/suspicious/noExplicitAny: the schemas are walked by name, as JSON.
const schemas = recordSchemas.components.schemas as Record<string, any>;

/** The spec's bounds, by what they bound. */
export const BOUNDS = {
  transactions: schemas.MovementTransactions.maxItems as number,
  transactionId: schemas.TransactionId.maxLength as number,
  recipientAddress: schemas.RecipientAddress.maxLength as number,
  tradeId: schemas.TradeId.maxLength as number,
  feedAmount: schemas.FeedAmount.maxLength as number,
  feedTime: schemas.FeedTime.maxLength as number,
  platforms: schemas.Catalogue.properties.platforms.maxItems as number,
  currencies: schemas.ExchangeCurrencies.maxItems as number,
  platformsPerCurrency: schemas.CatalogueCurrency.properties.platforms.maxProperties as number,
  platformName: schemas.PlatformName.maxLength as number,
  chainAssetId: schemas.ChainAssetId.maxLength as number,
  platformAssetId: schemas.PlatformAssetId.maxLength as number,
  xpub: schemas.CataloguePlatform.properties.xpub.maxLength as number,
  catalogueDecimal: schemas.CatalogueDecimal.maxLength as number,
} as const;

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
/** `n` in base58 digits, `width` wide (left-padded with the digit for 0). */
const base58 = (n: number, width: number) => {
  let out = '';
  for (let rest = n; rest > 0; rest = Math.floor(rest / 58)) out = BASE58[rest % 58] + out;
  return out.padStart(width, '1');
};

/** The longest platform id (32 characters), the `i`-th. */
export const longPlatformId = (i: number) => `P${String(i).padStart(31, '0')}`;
/** The longest currency id (a 44-character ledger asset id), the `i`-th. */
export const longCurrencyId = (i: number) => base58(i, 44);
/**
 * The amount whose answer is longest: amounts are served as JSON numbers, and none is written longer than
 * this one (`123456789012345680000`, 21 characters; larger ones take an exponent, `1e+30`).
 */
export const LONGEST_AMOUNT = '123456789012345678901';

/**
 * The largest movement record of `account` in `currency`: every text at its longest (the recipient in
 * characters JSON writes as six bytes each), every list full. `i` makes its id and time.
 */
export function largestMovement(i: number, account: string, currency: string) {
  const time = new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString().replace('Z', '123456+00:00');
  return {
    type: 'gateway_movement',
    id: `m${String(i).padStart(63, '0')}`,
    account,
    direction: 'withdrawal',
    status: 'pending_approval',
    source_platform_id: longPlatformId(1),
    destination_platform_id: longPlatformId(2),
    currency_id: currency,
    amount: LONGEST_AMOUNT,
    fee: LONGEST_AMOUNT,
    created_at: time,
    updated_at: time,
    recipient_address: '\u0001'.repeat(BOUNDS.recipientAddress),
    transactions: Array.from({ length: BOUNDS.transactions }, (_, t) => ({
      transaction_id: `0x${String(i * 100 + t).padStart(BOUNDS.transactionId - 2, 'f')}`,
      platform_id: longPlatformId(t),
    })),
  };
}

/** The largest trade record of `address` for a pair (the `i`-th). */
export function largestTrade(i: number, address: string, amountCurrency: string, priceCurrency: string) {
  return {
    id: `t${String(i).padStart(BOUNDS.tradeId - 1, '0')}`,
    address,
    amount_currency_id: amountCurrency,
    price_currency_id: priceCurrency,
    type: 'sell',
    timestamp: new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString(),
    amount: LONGEST_AMOUNT,
    price: LONGEST_AMOUNT,
  };
}

/** A movement record one over each bound of a movement, by the field it breaks. */
export function movementsOverBounds(base: ReturnType<typeof largestMovement>) {
  const [transaction] = base.transactions as [(typeof base.transactions)[number]];
  return {
    transactions: { ...base, transactions: [...base.transactions, transaction] },
    recipient_address: { ...base, recipient_address: 'x'.repeat(BOUNDS.recipientAddress + 1) },
    'transactions[0].transaction_id': {
      ...base,
      transactions: [{ ...transaction, transaction_id: `0x${'a'.repeat(BOUNDS.transactionId - 1)}` }],
    },
    amount: { ...base, amount: `${' '.repeat(BOUNDS.feedAmount)}1` },
    created_at: { ...base, created_at: `${base.created_at.slice(0, 19)}.${'1'.repeat(BOUNDS.feedTime - 25)}+00:00` },
  };
}

/**
 * The largest catalogue: as many platforms (of kind `ledger`, which takes no key and no fee) and currencies as
 * it may hold, each currency on as many platforms as it may be (the same ones, so that each of those lists
 * every currency), every text at its longest and every amount at its largest.
 */
export function largestCatalogue() {
  const platforms = Array.from({ length: BOUNDS.platforms }, (_, i) => ({
    id: longPlatformId(i),
    name: `Platform ${i} `.padEnd(BOUNDS.platformName, 'n'),
    address_kind: 'ledger',
  }));
  const terms = { status: 'active', min: '0', max: LONGEST_AMOUNT, fee_flat: '0', fee_rate: '0' };
  const currencies = Array.from({ length: BOUNDS.currencies }, (_, c) => ({
    id: longCurrencyId(c),
    chain_asset_id: longCurrencyId(c).padEnd(BOUNDS.chainAssetId, 'A'),
    decimals: '18',
    default_platform: longPlatformId(0),
    platforms: Object.fromEntries(
      Array.from({ length: BOUNDS.platformsPerCurrency }, (_, p) => [
        longPlatformId(p),
        { platform_asset_id: `${c}-${p}-`.padEnd(BOUNDS.platformAssetId, 'a'), deposit: terms, withdrawal: terms },
      ]),
    ),
  }));
  const staking = currencies.map((c) => ({ currency: c.id, apy: LONGEST_AMOUNT }));
  return { platforms, currencies, staking };
}

/**
 * A catalogue one over each of its bounds, by the entry and field it breaks (what its refusal names). Each is
 * small but for the list it overfills: one entry at its largest, or the list one over with small entries.
 */
export function cataloguesOverBounds(): Record<string, unknown> {
  const largest = largestCatalogue();
  const platform: { id: string; name: string; address_kind: string; xpub?: string } = largest
    .platforms[0] as (typeof largest.platforms)[number];
  const currency = { ...(largest.currencies[0] as (typeof largest.currencies)[number]) };
  const offer = currency.platforms[platform.id] as (typeof currency.platforms)[string];
  const small = (changed: object = {}, platforms = [platform]) => ({
    platforms,
    currencies: [{ ...currency, platforms: { [platform.id]: offer }, ...changed }],
  });
  const many = <T>(n: number, entry: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => entry(i));
  const name = `currencies[0] (${currency.id})`;
  return {
    platforms: small(
      {},
      many(BOUNDS.platforms + 1, (i) => ({ ...platform, id: longPlatformId(i) })),
    ),
    currencies: {
      ...small(),
      currencies: many(BOUNDS.currencies + 1, (i) => ({ ...currency, id: longCurrencyId(i) })),
    },
    staking: { ...small(), staking: many(BOUNDS.currencies + 1, () => ({ currency: currency.id, apy: '1' })) },
    [`${name}.platforms`]: small(
      { platforms: Object.fromEntries(many(BOUNDS.platformsPerCurrency + 1, (i) => [longPlatformId(i), offer])) },
      many(BOUNDS.platformsPerCurrency + 1, (i) => ({ ...platform, id: longPlatformId(i) })),
    ),
    [`platforms[0] (${platform.id}).name`]: small({}, [{ ...platform, name: 'n'.repeat(BOUNDS.platformName + 1) }]),
    [`platforms[0] (${platform.id}).xpub`]: small({}, [
      { ...platform, address_kind: 'evm', xpub: `xpub${'1'.repeat(BOUNDS.xpub - 3)}` },
    ]),
    [`${name}.chain_asset_id`]: small({ chain_asset_id: 'A'.repeat(BOUNDS.chainAssetId + 1) }),
    [`${name}.platforms.${platform.id}.platform_asset_id`]: small({
      platforms: { [platform.id]: { ...offer, platform_asset_id: 'a'.repeat(BOUNDS.platformAssetId + 1) } },
    }),
    [`${name}.platforms.${platform.id}.deposit.max`]: small({
      platforms: {
        [platform.id]: { ...offer, deposit: { ...offer.deposit, max: `1${' '.repeat(BOUNDS.catalogueDecimal)}` } },
      },
    }),
  };
}

/**
 * One catalogue over every bound at once (each of its refusals is reported), and the entry and field each
 * refusal names: a single load to show them all.
 */
export function catalogueOverEveryBound(): { catalogue: object; fields: string[] } {
  const terms = { status: 'active', min: '0', max: '1' };
  const offer = { platform_asset_id: 'a', deposit: terms };
  const p0 = longPlatformId(0);
  const platforms: object[] = Array.from({ length: BOUNDS.platforms + 1 }, (_, i) => ({
    id: longPlatformId(i),
    name: i === 0 ? 'n'.repeat(BOUNDS.platformName + 1) : 'n',
    address_kind: i === 1 ? 'evm' : 'ledger',
    ...(i === 1 ? { xpub: `xpub${'1'.repeat(BOUNDS.xpub - 3)}` } : {}),
  }));
  const currencies = Array.from({ length: BOUNDS.currencies + 1 }, (_, c) => ({
    id: longCurrencyId(c),
    chain_asset_id: c === 0 ? 'A'.repeat(BOUNDS.chainAssetId + 1) : 'A',
    decimals: '8',
    default_platform: p0,
    platforms:
      c === 1
        ? Object.fromEntries(
            Array.from({ length: BOUNDS.platformsPerCurrency + 1 }, (_, i) => [longPlatformId(i), offer]),
          )
        : c === 2
          ? { [p0]: { ...offer, platform_asset_id: 'a'.repeat(BOUNDS.platformAssetId + 1) } }
          : c === 3
            ? { [p0]: { ...offer, deposit: { ...terms, max: `1${' '.repeat(BOUNDS.catalogueDecimal)}` } } }
            : { [p0]: offer },
  }));
  const staking = currencies.map((c) => ({ currency: c.id, apy: '1' }));
  const named = (i: number) => `currencies[${i}] (${longCurrencyId(i)})`;
  return {
    catalogue: { platforms, currencies, staking },
    fields: [
      'platforms',
      `platforms[0] (${p0}).name`,
      `platforms[1] (${longPlatformId(1)}).xpub`,
      'currencies',
      `${named(0)}.chain_asset_id`,
      `${named(1)}.platforms`,
      `${named(2)}.platforms.${p0}.platform_asset_id`,
      `${named(3)}.platforms.${p0}.deposit.max`,
      'staking',
    ],
  };
}

/** A trade record one over the bound of its id. */
export const tradeOverBounds = (base: ReturnType<typeof largestTrade>) => ({
  id: { ...base, id: 'i'.repeat(BOUNDS.tradeId + 1) },
});
