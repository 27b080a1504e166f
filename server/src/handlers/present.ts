/** Shapes stored rows into the spec's resources. */
import type { components, SerializedJson } from '@gateway/generated';
import { decimalToNumber } from '../domain/decimal.js';
import type { MovementRecord, TradeRecord } from '../store/schema.js';
import type { PlatformRow, TermsRow } from '../store/terms.js';

type Schemas = components['schemas'];

function termsOf(row: TermsRow) {
  return {
    id: row.currency_id,
    platform_id: row.platform_id,
    chain_asset_id: row.chain_asset_id,
    platform_asset_id: row.platform_asset_id,
    decimals: row.decimals,
    status: row.status,
    allowed_amount: { min: decimalToNumber(row.min_amount), max: decimalToNumber(row.max_amount) },
    fees: { flat: decimalToNumber(row.fee_flat), rate: decimalToNumber(row.fee_rate) },
  };
}

export const depositCurrency = (row: TermsRow): Schemas['DepositCurrency'] => ({
  type: 'deposit_currency',
  ...termsOf(row),
});

export const withdrawalCurrency = (row: TermsRow): Schemas['WithdrawalCurrency'] => ({
  type: 'withdrawal_currency',
  ...termsOf(row),
});

export const platform = (row: PlatformRow): Schemas['Platform'] => ({
  type: 'platform',
  id: row.id,
  name: row.name,
  currencies: row.currencies,
});

export const trade = (row: TradeRecord): Schemas['Trade'] => ({
  type: row.type,
  id: row.id,
  timestamp: row.timestamp,
  amount: decimalToNumber(row.amount),
  price: decimalToNumber(row.price),
});

export const movement = (row: MovementRecord): Schemas['Movement'] => ({
  type: 'gateway_movement',
  id: row.id,
  direction: row.direction,
  status: row.status as Schemas['MovementStatus'],
  source_platform_id: row.source_platform_id,
  destination_platform_id: row.destination_platform_id,
  currency_id: row.currency_id,
  amount: decimalToNumber(row.amount),
  fee: decimalToNumber(row.fee),
  created_at: row.created_at,
  updated_at: row.updated_at,
  recipient_address: row.recipient_address,
  transactions: JSON.parse(row.transactions) as Schemas['MovementTransaction'][],
});

/** A body already serialized (the server sends `json` as it is); made from stored documents only. */
export class JsonText<T> implements SerializedJson<T> {
  constructor(readonly json: string) {}
}

/**
 * A list answer around stored item documents (store/documents.ts), in the envelope of every list: the
 * same text, key for key, that serializing the list object would give.
 */
export function listOfDocuments<List extends Schemas['MovementList'] | Schemas['TradeList']>(
  pageInfo: List['page_info'],
  documents: readonly string[],
): JsonText<List> {
  return new JsonText(`{"type":"list","page_info":${JSON.stringify(pageInfo)},"items":[${documents.join(',')}]}`);
}
