/** Feed lines are checked against the spec's MovementRecord and TradeRecord, then by the rules it cannot state. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseMovement, parseTrade } from '../../src/domain/feeds.js';
import { demoFiles } from '../../src/operator/commands.js';

const firstLine = (file: string) => JSON.parse(readFileSync(file, 'utf8').split('\n')[0] ?? '{}');
const movement = firstLine(demoFiles.movements);
const trade = firstLine(demoFiles.trades);
const decimalsOf = (currency: string) => ({ BTC: 8, USDT: 6 })[currency];
const movementProblems = (fields: Record<string, unknown>) => {
  const parsed = parseMovement(JSON.stringify({ ...movement, ...fields }), 'W', decimalsOf);
  return parsed.ok ? [] : parsed.problems;
};

describe('feed records', () => {
  it('reads a movement as the feed gives it: exact amounts, UTC times, optional type', () => {
    const parsed = parseMovement(
      JSON.stringify({
        ...movement,
        type: 'gateway_movement',
        amount: 0.5,
        created_at: '2020-11-03T10:34:02.63+02:00',
      }),
      'W',
      decimalsOf,
    );
    expect(parsed).toMatchObject({ ok: true, row: { amount: '0.5', created_at: '2020-11-03T08:34:02.630Z' } });
  });

  it('refuses what the schema refuses, naming each field', () => {
    expect(movementProblems({ type: 'movement' })).toEqual(['type: must be gateway_movement']);
    expect(movementProblems({ fee: -1, amount: true })).toEqual([
      'amount: must be a non-negative decimal (prefer a string for exactness)',
      'fee: must be a non-negative decimal (prefer a string for exactness)',
    ]);
    // A feed's transaction is also checked as the MovementTransaction it becomes: each problem is said once.
    expect(movementProblems({ transactions: [{ transaction_id: '0x', platform_id: 'BTC', extra: 1 }] })).toEqual([
      'transactions[0].transaction_id: "0x" does not match ^(?:0x[A-Za-z0-9_-]{1,128}|(?!0x)[A-Za-z0-9_-]{1,128})$',
      'transactions[0]: unknown field(s): extra',
    ]);
    expect(movementProblems({ transactions: [{ platform_id: 'BTC' }] })).toEqual([
      'transactions[0].transaction_id: is required',
    ]);
    expect(parseTrade('[1]', 'W')).toEqual({ ok: false, problems: ['must be a mapping'] });
  });

  it('refuses what only code can see: a number written with an exponent, an address of another network', () => {
    expect(movementProblems({ amount: 1e-7 })).toEqual([
      'amount: must be a non-negative decimal (prefer a string for exactness)',
    ]);
    expect(parseTrade(JSON.stringify(trade), 'T')).toEqual({
      ok: false,
      problems: ['address: not a ledger address of the T network'],
    });
  });

  it('refuses text no database here can store (U+0000, an unpaired surrogate), naming the field', () => {
    const unstorable = 'holds U+0000 or an unpaired surrogate, which no database here can store as text';
    expect(movementProblems({ recipient_address: 'a\u0000b' })).toEqual([`recipient_address: ${unstorable}`]);
    expect(movementProblems({ recipient_address: 'a\ud800' })).toEqual([`recipient_address: ${unstorable}`]);
    expect(movementProblems({ recipient_address: '\udfff' })).toEqual([`recipient_address: ${unstorable}`]);
    // Unescaped, U+0000 is not JSON at all (and a decoded line holds no unpaired surrogate).
    const raw = JSON.stringify({ ...movement, recipient_address: 'ab' }).replace('"ab"', '"a\u0000b"');
    expect(parseMovement(raw, 'W', decimalsOf)).toEqual({ ok: false, problems: ['not valid JSON'] });
    // A character outside the BMP (a surrogate pair) is text like any other.
    expect(movementProblems({ recipient_address: 'pay \ud83d\ude00' })).toEqual([]);
  });
});
