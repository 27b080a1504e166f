/** Shapes stored rows into the spec's resources. */
import type { components, SerializedJson } from '@gateway/generated';
import { decimalToNumber } from '../domain/decimal.js';
import type { MovementRecord, TradeRecord } from '../store/schema.js';
import type { CatalogueSnapshot, PlatformRow, TermsRow } from '../store/terms.js';

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

/**
 * A body already serialized (the server sends `json` as it is): stored documents, and catalogue answers
 * serialized once per catalogue snapshot.
 */
export class JsonText<T> implements SerializedJson<T> {
  constructor(readonly json: string) {}
}

const answersBySnapshot = new WeakMap<CatalogueSnapshot, Map<string, JsonText<unknown>>>();
/** Distinct answers kept per snapshot (keys include query parameters, which a client chooses). */
const MAX_ANSWERS = 2000;

/**
 * The answer `build` gives for this catalogue snapshot, serialized once: the catalogue only changes by a
 * load, which makes a new snapshot (and so a new set of answers) within a second on every instance.
 */
export function catalogueAnswer<T>(snapshot: CatalogueSnapshot, key: string, build: () => T): JsonText<T> {
  let answers = answersBySnapshot.get(snapshot);
  if (!answers) {
    answers = new Map();
    answersBySnapshot.set(snapshot, answers);
  }
  let answer = answers.get(key) as JsonText<T> | undefined;
  if (!answer) {
    answer = new JsonText<T>(JSON.stringify(build()));
    if (answers.size < MAX_ANSWERS) answers.set(key, answer);
  }
  return answer;
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
