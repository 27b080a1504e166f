#!/usr/bin/env node
// Writes the demo exchange under server/demo/: a catalogue (ETH, BSC and BTC platforms and the ledger's own
// platform WAVES, several currencies, one inactive, staking yields) and feeds of movements and trades for the
// demo account. Deterministic: rerunning gives the same files. The platforms' extended PUBLIC keys come from
// a fixed demo master seed; nothing here holds a private key of a deposit address. The spec's example
// movement is one of the demo account's, so the spec's example requests answer on the demo exchange.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HDKey } from '@scure/bip32';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'server/demo');
const spec = JSON.parse(readFileSync(path.join(root, 'generated/openapi.json'), 'utf8'));
const [exampleMovement] = spec.components.schemas.Movement.examples;
const master = HDKey.fromMasterSeed(createHash('sha256').update('exchange-gateway demo master seed').digest());
const evmXpub = master.derive("m/44'/60'/0'/0").publicExtendedKey;
const bscXpub = master.derive("m/44'/60'/1'/0").publicExtendedKey;
const btcXpub = master.derive("m/84'/0'/0'/0").publicExtendedKey;

/** The demo account: the public known-answer seed of the ledger's reference library (README). */
const DEMO_ACCOUNT = '3P9KR33QyXwfTXv8kKtNGZYtgKk3RXSUk36';
/** Another account, so that lists show only the signed-in account's data. */
const OTHER_ACCOUNT = '3PQ4nHEVPtvd4TDP77H7BSdDddyxLs9gQ67';

const catalogue = `# Demo catalogue: loaded by \`npm start\` into an empty database (gateway serve --demo).
# Amounts are exact decimals in whole currency units. Load your own with: gateway catalogue load FILE
platforms:
  - id: BSC
    name: BNB Smart Chain
    address_kind: evm
    xpub: ${bscXpub}
  - id: BTC
    name: Bitcoin
    address_kind: bitcoin
    network: mainnet
    xpub: ${btcXpub}
  - id: ETH
    name: Ethereum
    address_kind: evm
    xpub: ${evmXpub}
  # The ledger itself: deposits go to the account's own address, withdrawals straight to the destination.
  - id: WAVES
    name: Waves
    address_kind: ledger
currencies:
  - id: BNB
    chain_asset_id: 66a1br3BrkoaJgP7yEar9hJcSTvJPoH6PYBLqscXcMGo
    decimals: 8
    default_platform: BSC
    platforms:
      BSC:
        platform_asset_id: BNB
        deposit: { status: active, min: '0.01', max: '5000', fee_flat: '0', fee_rate: '0' }
        withdrawal: { status: active, min: '0.02', max: '5000', fee_flat: '0.001', fee_rate: '0' }
  - id: BTC
    chain_asset_id: 8LQW8f7P5d5PZM7GtZEBgaqRPGSzS3DfPuiXrURJ4AJS
    decimals: 8
    default_platform: BTC
    platforms:
      BTC:
        platform_asset_id: BTC
        deposit: { status: active, min: '0.001', max: '50', fee_flat: '0', fee_rate: '0' }
        withdrawal: { status: active, min: '0.002', max: '50', fee_flat: '0.0005', fee_rate: '0' }
  - id: ETH
    chain_asset_id: 474jTeYx2r2Va35794tCScAXWJG9hU2HcgxzMowaZUnu
    decimals: 8
    default_platform: ETH
    platforms:
      ETH:
        platform_asset_id: ETH
        deposit: { status: active, min: '0.01', max: '1000', fee_flat: '0', fee_rate: '0' }
        withdrawal: { status: active, min: '0.02', max: '1000', fee_flat: '0.005', fee_rate: '0' }
  - id: USDC
    chain_asset_id: 6XtHjpXbs9RRJP2Sr9GUyVqzACcby9TkThHHnjVC5CDJ
    decimals: 6
    default_platform: ETH
    platforms:
      ETH:
        platform_asset_id: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'
        deposit: { status: inactive, min: '10', max: '1000000', fee_flat: '0', fee_rate: '0' }
        withdrawal: { status: inactive, min: '20', max: '500000', fee_flat: '5', fee_rate: '0.001' }
  - id: USDT
    chain_asset_id: 34N9YcEETLWn93qYQ64EsP1x89tSruJU44RrEMSXXEPJ
    decimals: 6
    default_platform: ETH
    platforms:
      BSC:
        platform_asset_id: '0x55d398326f99059fF775485246999027B3197955'
        deposit: { status: active, min: '5', max: '1000000', fee_flat: '0', fee_rate: '0' }
        withdrawal: { status: active, min: '10', max: '500000', fee_flat: '1', fee_rate: '0' }
      ETH:
        platform_asset_id: '0xdAC17F958D2ee523a2206206994597C13D831ec7'
        deposit: { status: active, min: '10', max: '1000000', fee_flat: '0', fee_rate: '0' }
        withdrawal: { status: active, min: '20', max: '500000', fee_flat: '5', fee_rate: '0.001' }
      WAVES:
        platform_asset_id: 34N9YcEETLWn93qYQ64EsP1x89tSruJU44RrEMSXXEPJ
        deposit: { status: active, min: '0.000001', max: '1000000', fee_flat: '0', fee_rate: '0' }
        withdrawal: { status: active, min: '0.000001', max: '1000000', fee_flat: '0', fee_rate: '0' }
  - id: WAVES
    chain_asset_id: WAVES
    decimals: 8
    default_platform: ETH
    platforms:
      ETH:
        platform_asset_id: '0x1cF4592ebfFd730c7dc92c1bdFFDfc3B9EfCf29a'
        deposit: { status: active, min: '1', max: '100000', fee_flat: '0', fee_rate: '0' }
        withdrawal: { status: active, min: '2', max: '100000', fee_flat: '0.5', fee_rate: '0.002' }
      WAVES:
        platform_asset_id: WAVES
        deposit: { status: active, min: '0.00000001', max: '100000', fee_flat: '0', fee_rate: '0' }
        withdrawal: { status: active, min: '0.00000001', max: '100000', fee_flat: '0', fee_rate: '0' }
staking:
  - { currency: WAVES, apy: '6.22' }
  - { currency: ETH, apy: '3.71' }
`;
writeFileSync(path.join(out, 'catalogue.yaml'), catalogue);

// A small deterministic PRNG (mulberry32) so the feeds are the same on every run.
let state = 0x5eed;
const random = () => {
  state = (state + 0x6d2b79f5) | 0;
  let t = Math.imul(state ^ (state >>> 15), 1 | state);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = (items) => items[Math.floor(random() * items.length)];
const hex = (bytes) =>
  Array.from({ length: bytes }, () =>
    Math.floor(random() * 256)
      .toString(16)
      .padStart(2, '0'),
  ).join('');
const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const txId = () => Array.from({ length: 44 }, () => pick(BASE58)).join('');
const uuid = () => {
  const h = hex(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
};
const fixed = (value, decimals) => Number(value.toFixed(decimals)).toString();

const routes = [
  { currency: 'USDT', platform: 'ETH', decimals: 6, size: 2000, fee: (a, w) => (w ? 5 + (a - 5) * 0.001 : 0) },
  { currency: 'USDT', platform: 'BSC', decimals: 6, size: 800, fee: (_, w) => (w ? 1 : 0) },
  { currency: 'BTC', platform: 'BTC', decimals: 8, size: 0.08, fee: (_, w) => (w ? 0.0005 : 0) },
  { currency: 'ETH', platform: 'ETH', decimals: 8, size: 1.5, fee: (_, w) => (w ? 0.005 : 0) },
  { currency: 'BNB', platform: 'BSC', decimals: 8, size: 4, fee: (_, w) => (w ? 0.001 : 0) },
];
const statuses = ['confirmed', 'confirmed', 'confirmed', 'in_progress', 'pending_approval', 'rejected'];
const movements = [];
let time = Date.parse('2021-03-01T09:00:00.000Z');
for (let i = 0; i < 60; i++) {
  const account = i % 6 === 5 ? OTHER_ACCOUNT : DEMO_ACCOUNT;
  const route = pick(routes);
  const withdrawal = random() < 0.4;
  const amount = Number(fixed(route.size * (0.05 + random()), route.decimals));
  const created = new Date(time).toISOString();
  // Every few movements share a creation time: pages must still neither skip nor repeat them.
  if (i % 7 !== 3) time += Math.floor(3_600_000 * (2 + random() * 40));
  const status = i > 55 ? 'in_progress' : pick(statuses);
  const external = route.platform === 'BTC' ? `bc1q${hex(19).slice(0, 38)}` : `0x${hex(20)}`;
  movements.push({
    id: uuid(),
    account,
    direction: withdrawal ? 'withdrawal' : 'deposit',
    status,
    source_platform_id: withdrawal ? 'WAVES' : route.platform,
    destination_platform_id: withdrawal ? route.platform : 'WAVES',
    currency_id: route.currency,
    amount: fixed(amount, route.decimals),
    fee: fixed(route.fee(amount, withdrawal), route.decimals),
    created_at: created,
    updated_at: new Date(time + 1_800_000).toISOString(),
    recipient_address: withdrawal ? external : account,
    transactions:
      status === 'rejected'
        ? []
        : [
            { transaction_id: route.platform === 'BTC' ? hex(32) : `0x${hex(32)}`, platform_id: route.platform },
            ...(status === 'confirmed' ? [{ transaction_id: txId(), platform_id: 'WAVES' }] : []),
          ],
  });
}
// The first (oldest) of the demo account's movements is the spec's example, as the spec writes it.
const { type: _type, id, ...example } = exampleMovement;
movements[0] = { id, account: DEMO_ACCOUNT, ...example, amount: String(example.amount), fee: String(example.fee) };
writeFileSync(path.join(out, 'movements.ndjson'), `${movements.map((m) => JSON.stringify(m)).join('\n')}\n`);

const pairs = [
  { amount: 'WAVES', price: 'USDT', base: 15.9, count: 320, amountDecimals: 8, priceDecimals: 6 },
  { amount: 'BTC', price: 'USDT', base: 39000, count: 60, amountDecimals: 8, priceDecimals: 2 },
  { amount: 'ETH', price: 'USDT', base: 2600, count: 80, amountDecimals: 8, priceDecimals: 2 },
];
const trades = [];
for (const pair of pairs) {
  let at = Date.parse('2021-08-01T00:00:00.000Z');
  let price = pair.base;
  for (let i = 0; i < pair.count; i++) {
    price *= 1 + (random() - 0.5) * 0.01;
    // Some trades share a millisecond (one order filled against several).
    if (i % 9 !== 4) at += Math.floor(60_000 + random() * 7_200_000);
    for (const address of i % 10 === 0 ? [DEMO_ACCOUNT, OTHER_ACCOUNT] : [DEMO_ACCOUNT]) {
      trades.push({
        id: txId(),
        address,
        amount_currency_id: pair.amount,
        price_currency_id: pair.price,
        type: random() < 0.5 ? 'buy' : 'sell',
        timestamp: new Date(at).toISOString(),
        amount: fixed((pair.amount === 'WAVES' ? 300 : 0.6) * random() + 0.001, pair.amountDecimals),
        price: fixed(price, pair.priceDecimals),
      });
    }
  }
}
writeFileSync(path.join(out, 'trades.ndjson'), `${trades.map((t) => JSON.stringify(t)).join('\n')}\n`);
console.log(
  `demo data: ${movements.length} movements, ${trades.length} trades in ${path.relative(process.cwd(), out)}`,
);
