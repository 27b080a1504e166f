/**
 * The stored records, each declared once against the spec's feed record (store/stored-fields.ts): the
 * row types, the tables' columns, the upserts' update lists and the documents the API serves derive from
 * these. A field added to MovementRecord or TradeRecord in the spec fails the typecheck here until it is
 * declared; the migration that adds its column is checked by test/store/stored-fields.test.ts.
 */
import type { components, RecordTypes } from '@gateway/generated';
import { decimalToNumber } from '../lib/decimal.js';
import { type FieldsOf, type StoredRow, storedRecord } from './stored-fields.js';

type Schemas = components['schemas'];

/**
 * A movement as imported: the feed's fields in the spec's types, amounts as canonical decimal text, times
 * as UTC ISO 8601 text with ms, transactions as the JSON text of `{transaction_id, platform_id}` items. The
 * record's `type` (a constant, which may be left out) is not stored.
 */
export type MovementRecord = StoredRow<
  RecordTypes['MovementRecord'],
  'type',
  { amount: string; fee: string; created_at: string; updated_at: string; transactions: string }
>;

/** A trade as imported (one of its two addresses' view): amounts and time stored as for movements. */
export type TradeRecord = StoredRow<
  RecordTypes['TradeRecord'],
  never,
  { amount: string; price: string; timestamp: string }
>;

/** A movement's transactions, stored as the JSON text of the items the API serves. */
const transactionsOf = (row: MovementRecord): Schemas['MovementTransaction'][] => JSON.parse(row.transactions);

/** Movements: upserted by `id`; `account` and `created_at` place a movement in its list and never change. */
export const MOVEMENT_FIELDS = {
  type: { column: null, served: { as: 'type', value: () => 'gateway_movement' } },
  id: { column: 'fixed', served: { as: 'id', value: (r) => r.id } },
  account: { column: 'fixed', served: null },
  direction: { column: 'updated', served: { as: 'direction', value: (r) => r.direction } },
  status: { column: 'updated', served: { as: 'status', value: (r) => r.status } },
  source_platform_id: {
    column: 'updated',
    served: { as: 'source_platform_id', value: (r) => r.source_platform_id },
  },
  destination_platform_id: {
    column: 'updated',
    served: { as: 'destination_platform_id', value: (r) => r.destination_platform_id },
  },
  currency_id: { column: 'updated', served: { as: 'currency_id', value: (r) => r.currency_id } },
  amount: { column: 'updated', served: { as: 'amount', value: (r) => decimalToNumber(r.amount) } },
  fee: { column: 'updated', served: { as: 'fee', value: (r) => decimalToNumber(r.fee) } },
  created_at: { column: 'fixed', served: { as: 'created_at', value: (r) => r.created_at } },
  updated_at: { column: 'updated', served: { as: 'updated_at', value: (r) => r.updated_at } },
  recipient_address: { column: 'updated', served: { as: 'recipient_address', value: (r) => r.recipient_address } },
  transactions: { column: 'updated', served: { as: 'transactions', value: transactionsOf } },
} as const satisfies FieldsOf<RecordTypes['MovementRecord'], MovementRecord, Schemas['Movement']>;
export const MOVEMENT = storedRecord<RecordTypes['MovementRecord'], MovementRecord, Schemas['Movement']>()(
  MOVEMENT_FIELDS,
);

/**
 * Trades: upserted by (`address`, `id`); `timestamp` places a trade in its list and never changes. `type`
 * comes first: the answer's first field.
 */
export const TRADE_FIELDS = {
  type: { column: 'updated', served: { as: 'type', value: (r) => r.type } },
  address: { column: 'fixed', served: null },
  id: { column: 'fixed', served: { as: 'id', value: (r) => r.id } },
  amount_currency_id: { column: 'updated', served: null },
  price_currency_id: { column: 'updated', served: null },
  timestamp: { column: 'fixed', served: { as: 'timestamp', value: (r) => r.timestamp } },
  amount: { column: 'updated', served: { as: 'amount', value: (r) => decimalToNumber(r.amount) } },
  price: { column: 'updated', served: { as: 'price', value: (r) => decimalToNumber(r.price) } },
} as const satisfies FieldsOf<RecordTypes['TradeRecord'], TradeRecord, Schemas['Trade']>;
export const TRADE = storedRecord<RecordTypes['TradeRecord'], TradeRecord, Schemas['Trade']>()(TRADE_FIELDS);
