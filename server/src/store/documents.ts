/**
 * Documents: every movement and trade is stored with the JSON text the API serves for it, rendered when the
 * row is written. A page of 1,000 trades is then read as 1,000 texts instead of 8,000 values, and answered
 * without building and serializing 1,000 objects (the drivers' per-value cost was the largest part of a
 * page; see bench/README.md).
 *
 * The rendering (`movement`, `trade` below) derives from each record's declaration (store/stored-records.ts),
 * typed by the spec, so a spec change that reshapes a movement or its record is a compile error there. What
 * keeps stored text
 * from going stale is the format: a fingerprint of the rendering of sample rows. When it differs from the
 * one the database was rendered in, `refreshDocuments` (store/refresh-documents.ts) renders every row again (it runs
 * after the migrations, on `gateway migrate` and when a server starts).
 */
import { createHash } from 'node:crypto';
import type { MovementRecord, MovementTable, TradeRecord, TradeTable } from './schema.js';
import { MOVEMENT, TRADE } from './stored-records.js';

/** A trade as the API serves it (derived from its declaration, store/stored-records.ts). */
export const trade = TRADE.render;

/** A movement as the API serves it (derived from its declaration, store/stored-records.ts). */
export const movement = MOVEMENT.render;

export const movementDocument = (record: MovementRecord): string => JSON.stringify(movement(record));
export const tradeDocument = (record: TradeRecord): string => JSON.stringify(trade(record));

export const withMovementDocument = (record: MovementRecord): MovementTable => ({
  ...record,
  document: movementDocument(record),
});
export const withTradeDocument = (record: TradeRecord): TradeTable => ({ ...record, document: tradeDocument(record) });

/** Sample rows covering every field (zero and non-zero amounts, both kinds of each direction and trade type, two of the statuses). */
export const SAMPLE_MOVEMENTS: readonly MovementRecord[] = [
  {
    id: 'f3b6a2a4-0d5e-4b8e-9a57-2f2b4f0c1d11',
    account: '3P8pGyzZL9AUuFs9YRYPDV3vm73T48ptZxs',
    direction: 'deposit',
    status: 'confirmed',
    source_platform_id: 'ETH',
    destination_platform_id: 'WAVES',
    currency_id: 'USDT',
    amount: '1250.5',
    fee: '0',
    created_at: '2023-05-01T10:00:00.000Z',
    updated_at: '2023-05-01T10:05:00.000Z',
    recipient_address: '3P8pGyzZL9AUuFs9YRYPDV3vm73T48ptZxs',
    transactions: '[{"transaction_id":"0xabc","platform_id":"ETH"}]',
  },
  {
    id: 'a9d1c7e2-5b3f-4c6a-8e0d-7f1b2c3d4e5f',
    account: '3P8pGyzZL9AUuFs9YRYPDV3vm73T48ptZxs',
    direction: 'withdrawal',
    status: 'pending_approval',
    source_platform_id: 'WAVES',
    destination_platform_id: 'BTC',
    currency_id: 'BTC',
    amount: '0.00000001',
    fee: '0.0005',
    created_at: '2023-05-02T11:00:00.000Z',
    updated_at: '2023-05-02T11:00:00.000Z',
    recipient_address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
    transactions: '[]',
  },
];
export const SAMPLE_TRADES: readonly TradeRecord[] = [
  {
    address: '3P8pGyzZL9AUuFs9YRYPDV3vm73T48ptZxs',
    id: '7kPFrHDiGw1rCm7LPszuECwWYL3dMf6iMifLRDJQZMzy',
    amount_currency_id: 'WAVES',
    price_currency_id: 'USDT',
    type: 'buy',
    timestamp: '2023-05-03T12:00:00.000Z',
    amount: '12.5',
    price: '0.000123',
  },
  {
    address: '3P8pGyzZL9AUuFs9YRYPDV3vm73T48ptZxs',
    id: '8kPFrHDiGw1rCm7LPszuECwWYL3dMf6iMifLRDJQZMzy',
    amount_currency_id: 'WAVES',
    price_currency_id: 'USDT',
    type: 'sell',
    timestamp: '2023-05-03T12:00:01.000Z',
    amount: '0',
    price: '41000',
  },
];

/** The fingerprint of the rendering of `movements` and `trades`. */
export const formatOf = (movements: readonly MovementRecord[], trades: readonly TradeRecord[]): string =>
  createHash('sha256')
    .update(JSON.stringify([movements.map(movementDocument), trades.map(tradeDocument)]))
    .digest('hex')
    .slice(0, 16);

/** The fingerprint of the current rendering: it changes whenever the rendering of the samples does. */
export const DOCUMENT_FORMAT = formatOf(SAMPLE_MOVEMENTS, SAMPLE_TRADES);

/**
 * Formats whose documents are the current ones, although their fingerprint differs: a change of the samples,
 * not of the rendering. 7fd4233ab789e302: the samples up to 1.1.0 held the status `pending`, which the spec
 * does not list (typed by the spec now, they cannot); test/store/stored-fields.test.ts renders those samples
 * with this release's code and finds that fingerprint, so its databases are not rendered again.
 */
export const SAME_DOCUMENTS_AS: readonly string[] = ['7fd4233ab789e302'];
