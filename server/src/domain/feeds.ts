/**
 * Records of the movement and trade feeds (`gateway movements import`, `gateway trades import`): one JSON
 * object a line, checked against the spec's MovementRecord and TradeRecord. A movement's status and times
 * are stored as the feed says: no transition rules are invented.
 */
import type { RecordTypes } from '@gateway/generated';
import { type ChainId, isLedgerAddress } from '@gateway/ledger';
import { normaliseTimestamp } from '../lib/time.js';
import type { MovementRecord, TradeRecord } from '../store/schema.js';
import { checkRecord, type Problems, readDecimal } from './records.js';

/** Decimals of an amount whose currency is unknown (its refusal is reported on the currency). */
const MAX_DECIMALS = 18;

export type Parsed<T> = { ok: true; row: T } | { ok: false; problems: string[] };

/**
 * Parses a line and checks it against its record schema; `read` then applies the rules a schema cannot
 * state, on the fields the schema found sound, and builds the row (kept only when nothing is wrong).
 */
function parseLine<Name extends 'MovementRecord' | 'TradeRecord', Row>(
  line: string,
  name: Name,
  read: (record: RecordTypes[Name], problems: Problems) => Row,
): Parsed<Row> {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { ok: false, problems: ['not valid JSON'] };
  }
  const problems = checkRecord(name, value);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, problems: problems.lines() };
  }
  // Only an escape can put such a character in a line (JSON refuses a raw U+0000, and a decoded line holds
  // no unpaired surrogate): most lines are not searched.
  if (line.includes('\\u')) {
    for (const path of unstorable(value)) problems.add(path, UNSTORABLE);
  }
  const row = read(value as RecordTypes[Name], problems);
  return problems.any ? { ok: false, problems: problems.lines() } : { ok: true, row };
}

const UNSTORABLE = 'holds U+0000 or an unpaired surrogate, which no database here can store as text';
// biome-ignore lint/suspicious/noControlCharactersInRegex: U+0000 is the character looked for.
const UNSTORABLE_CHARACTER = /\u0000|\p{Cs}/u;

/**
 * Where a parsed record holds text PostgreSQL refuses (U+0000, an unpaired UTF-16 surrogate): refused with
 * its line on both databases, rather than failing its batch's statement, or being stored on one only.
 */
function* unstorable(value: unknown, path: (string | number)[] = []): Generator<(string | number)[]> {
  if (typeof value === 'string') {
    if (UNSTORABLE_CHARACTER.test(value)) yield path;
  } else if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) yield* unstorable(item, [...path, i]);
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (UNSTORABLE_CHARACTER.test(key)) yield path;
      yield* unstorable(item, [...path, key]);
    }
  }
}

/**
 * Ledger addresses already checked, per network: a feed names the same accounts again and again, and the
 * check (two hashes for the checksum) was the largest share of a line's parsing. Bounded; addresses are
 * public, so remembering them discloses nothing.
 */
const checkedAddresses = new Map<ChainId, Set<string>>();
const CHECKED_ADDRESSES_MAX = 100_000;

function isKnownLedgerAddress(value: string, chainId: ChainId): boolean {
  let checked = checkedAddresses.get(chainId);
  if (checked?.has(value)) return true;
  if (!isLedgerAddress(value, chainId)) return false;
  if (!checked) {
    checked = new Set();
    checkedAddresses.set(chainId, checked);
  }
  if (checked.size >= CHECKED_ADDRESSES_MAX) checked.clear();
  checked.add(value);
  return true;
}

function ledgerAddress(problems: Problems, field: string, value: string, chainId: ChainId): string {
  if (problems.sound([field]) && !isKnownLedgerAddress(value, chainId)) {
    problems.add([field], `not a ledger address of the ${chainId} network`);
  }
  return value;
}

/** UTC with milliseconds; a time the schema refused is not read. */
const utc = (value: string): string => normaliseTimestamp(value) ?? '';

/** A movement record; `decimalsOf` gives a known currency's decimals (unknown currencies are refused). */
export function parseMovement(
  line: string,
  chainId: ChainId,
  decimalsOf: (currency: string) => number | undefined,
): Parsed<MovementRecord> {
  return parseLine(line, 'MovementRecord', (record, problems) => {
    const decimals = problems.sound(['currency_id']) ? decimalsOf(record.currency_id) : undefined;
    if (problems.sound(['currency_id']) && decimals === undefined) {
      problems.add(['currency_id'], `${record.currency_id} is not in the catalogue`);
    }
    return {
      id: record.id,
      account: ledgerAddress(problems, 'account', record.account, chainId),
      direction: record.direction,
      status: record.status,
      source_platform_id: record.source_platform_id,
      destination_platform_id: record.destination_platform_id,
      currency_id: record.currency_id,
      amount: readDecimal(problems, ['amount'], record.amount, decimals ?? MAX_DECIMALS),
      fee: readDecimal(problems, ['fee'], record.fee, decimals ?? MAX_DECIMALS),
      created_at: utc(record.created_at),
      updated_at: utc(record.updated_at),
      recipient_address: record.recipient_address,
      // Stored in one field order whatever the feed's, as the API serves it.
      transactions: JSON.stringify(
        (problems.sound(['transactions']) ? record.transactions : []).map((t) => ({
          transaction_id: t.transaction_id,
          platform_id: t.platform_id,
        })),
      ),
    };
  });
}

/** A trade record of one address (the same trade appears once for each of its two addresses). */
export function parseTrade(line: string, chainId: ChainId): Parsed<TradeRecord> {
  return parseLine(line, 'TradeRecord', (record, problems) => ({
    id: record.id,
    address: ledgerAddress(problems, 'address', record.address, chainId),
    amount_currency_id: record.amount_currency_id,
    price_currency_id: record.price_currency_id,
    type: record.type,
    timestamp: utc(record.timestamp),
    amount: readDecimal(problems, ['amount'], record.amount, MAX_DECIMALS),
    price: readDecimal(problems, ['price'], record.price, MAX_DECIMALS),
  }));
}
