/**
 * Records of the movement and trade feeds (`gateway movements import`, `gateway trades import`): one JSON
 * object a line, the API's own fields plus ownership. A movement's status and times are stored as the feed
 * says: no transition rules are invented.
 */
import { createRequire } from 'node:module';
import { type ChainId, isLedgerAddress } from '@gateway/ledger';
import { fractionDigits, parseDecimal } from '../lib/decimal.js';
import { normaliseTimestamp } from '../lib/time.js';
import type { MovementRecord, TradeRecord } from '../store/schema.js';
import { idPatterns } from './patterns.js';

const spec = createRequire(import.meta.url)('@gateway/generated/openapi.json') as {
  components: { schemas: { MovementStatus: { enum: string[] } } };
};
const MOVEMENT_STATUSES = new Set(spec.components.schemas.MovementStatus.enum);
const MAX_DECIMALS = 18;
const TEXT_ID = /^[A-Za-z0-9_-]{1,128}$/;

type Raw = Record<string, unknown>;
export type Parsed<T> = { ok: true; row: T } | { ok: false; problems: string[] };

class Checker {
  readonly problems: string[] = [];
  constructor(readonly raw: Raw) {}
  text(field: string, pattern?: RegExp, max = 256): string {
    const value = this.raw[field];
    if (typeof value !== 'string' || value === '' || value.length > max) {
      this.problems.push(`${field}: must be a non-empty string of at most ${max} characters`);
      return '';
    }
    if (pattern && !pattern.test(value)) this.problems.push(`${field}: "${value.slice(0, 80)}" is not valid`);
    return value;
  }
  oneOf<T extends string>(field: string, allowed: ReadonlySet<string>): T {
    const value = this.raw[field];
    if (typeof value !== 'string' || !allowed.has(value)) {
      this.problems.push(`${field}: must be one of ${[...allowed].join(', ')}`);
    }
    return value as T;
  }
  amount(field: string, decimals: number): string {
    const value = parseDecimal(this.raw[field]);
    if (value === null) {
      this.problems.push(`${field}: must be a non-negative decimal (prefer a string for exactness)`);
      return '0';
    }
    if (fractionDigits(value) > decimals) this.problems.push(`${field}: ${value} has more than ${decimals} decimals`);
    return value;
  }
  time(field: string): string {
    const value = normaliseTimestamp(this.raw[field]);
    if (value === null) this.problems.push(`${field}: must be an ISO 8601 date-time with a time zone`);
    return value ?? '';
  }
  ledgerAddress(field: string, chainId: ChainId): string {
    const value = this.text(field);
    if (value && !isLedgerAddress(value, chainId))
      this.problems.push(`${field}: not a ledger address of the ${chainId} network`);
    return value;
  }
  onlyFields(allowed: readonly string[]): void {
    const unknown = Object.keys(this.raw).filter((key) => !allowed.includes(key));
    if (unknown.length > 0) this.problems.push(`unknown field(s): ${unknown.join(', ')}`);
  }
  result<T>(row: T): Parsed<T> {
    return this.problems.length > 0 ? { ok: false, problems: this.problems } : { ok: true, row };
  }
}

function parseObject(line: string): Raw | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return 'not valid JSON';
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Raw) : 'not a JSON object';
}

/** `{transaction_id, platform_id}` and nothing else; a transaction id may carry a 0x prefix. */
function isTransaction(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const { transaction_id, platform_id, ...rest } = value as Raw;
  return (
    typeof transaction_id === 'string' &&
    TEXT_ID.test(transaction_id.replace(/^0x/, '')) &&
    typeof platform_id === 'string' &&
    idPatterns.platform.test(platform_id) &&
    Object.keys(rest).length === 0
  );
}

const MOVEMENT_FIELDS = [
  'type',
  'id',
  'account',
  'direction',
  'status',
  'source_platform_id',
  'destination_platform_id',
  'currency_id',
  'amount',
  'fee',
  'created_at',
  'updated_at',
  'recipient_address',
  'transactions',
];

/** A movement record; `decimalsOf` gives a known currency's decimals (unknown currencies are refused). */
export function parseMovement(
  line: string,
  chainId: ChainId,
  decimalsOf: (currency: string) => number | undefined,
): Parsed<MovementRecord> {
  const raw = parseObject(line);
  if (typeof raw === 'string') return { ok: false, problems: [raw] };
  const c = new Checker(raw);
  c.onlyFields(MOVEMENT_FIELDS);
  if (raw.type !== undefined && raw.type !== 'gateway_movement')
    c.problems.push('type: must be gateway_movement when given');
  const currency = c.text('currency_id', idPatterns.currency);
  const decimals = currency ? decimalsOf(currency) : undefined;
  if (currency && decimals === undefined) c.problems.push(`currency_id: ${currency} is not in the catalogue`);
  const transactions = Array.isArray(raw.transactions) ? raw.transactions : [];
  if (!Array.isArray(raw.transactions) || !transactions.every(isTransaction)) {
    c.problems.push('transactions: must be a list of {transaction_id, platform_id}');
  }
  const row: MovementRecord = {
    id: c.text('id', idPatterns.movementId, 64),
    account: c.ledgerAddress('account', chainId),
    direction: c.oneOf('direction', new Set(['deposit', 'withdrawal'])),
    status: c.oneOf('status', MOVEMENT_STATUSES),
    source_platform_id: c.text('source_platform_id', idPatterns.platform),
    destination_platform_id: c.text('destination_platform_id', idPatterns.platform),
    currency_id: currency,
    amount: c.amount('amount', decimals ?? MAX_DECIMALS),
    fee: c.amount('fee', decimals ?? MAX_DECIMALS),
    created_at: c.time('created_at'),
    updated_at: c.time('updated_at'),
    recipient_address: c.text('recipient_address', undefined, 128),
    transactions: JSON.stringify(
      (transactions ?? []).map((t) => ({
        transaction_id: (t as Raw).transaction_id,
        platform_id: (t as Raw).platform_id,
      })),
    ),
  };
  return c.result(row);
}

const TRADE_FIELDS = [
  'id',
  'address',
  'amount_currency_id',
  'price_currency_id',
  'type',
  'timestamp',
  'amount',
  'price',
];

/** A trade record of one address (the same trade appears once for each of its two addresses). */
export function parseTrade(line: string, chainId: ChainId): Parsed<TradeRecord> {
  const raw = parseObject(line);
  if (typeof raw === 'string') return { ok: false, problems: [raw] };
  const c = new Checker(raw);
  c.onlyFields(TRADE_FIELDS);
  const row: TradeRecord = {
    id: c.text('id', TEXT_ID, 128),
    address: c.ledgerAddress('address', chainId),
    amount_currency_id: c.text('amount_currency_id', idPatterns.currency),
    price_currency_id: c.text('price_currency_id', idPatterns.currency),
    type: c.oneOf('type', new Set(['buy', 'sell'])),
    timestamp: c.time('timestamp'),
    amount: c.amount('amount', MAX_DECIMALS),
    price: c.amount('price', MAX_DECIMALS),
  };
  return c.result(row);
}
