import { describe, expect, it } from 'vitest';
import { formatAmount, parseAmount } from '../src/amounts.js';

describe('amounts', () => {
  it.each([
    ['1.5', 8, 150_000_000n],
    ['0.00000001', 8, 1n],
    ['.5', 2, 50n],
    ['12', 0, 12n],
    ['  3.10 ', 2, 310n],
    ['12345678901234567890.123456789012345678', 18, 12345678901234567890123456789012345678n],
    [0.0128, 8, 1_280_000n],
    [1e-7, 8, 10n],
    [1e21, 0, 10n ** 21n],
    ['2.5e3', 0, 2500n],
  ] as const)('parse %s at %d decimals: %s units', (text, decimals, units) => {
    expect(parseAmount(text, decimals)).toBe(units);
  });

  it.each([['abc'], ['-1'], [''], ['.'], ['1,5'], ['1.2.3'], [Number.NaN], [-0.5]])('refuses %s', (text) => {
    expect(() => parseAmount(text, 8)).toThrow(RangeError);
  });

  it('refuses more places than the currency has, and reads another decimal separator when told', () => {
    expect(() => parseAmount('0.123', 2)).toThrow(/more than 2 decimals/);
    expect(parseAmount('0.1200', 2)).toBe(12n);
    expect(parseAmount('1,5', 2, { decimalSeparator: ',' })).toBe(150n);
    expect(() => parseAmount('1.5', 2, { decimalSeparator: ',' })).toThrow(RangeError);
  });

  it('formats units exactly, at any size, with optional grouping and fixed places', () => {
    expect(formatAmount(150_000_000n, 8)).toBe('1.5');
    expect(formatAmount(1n, 8)).toBe('0.00000001');
    expect(formatAmount(0n, 6)).toBe('0');
    expect(formatAmount(-250n, 2)).toBe('-2.5');
    expect(formatAmount(12n, 0)).toBe('12');
    expect(formatAmount(123456789012345678901234567890n, 6)).toBe('123456789012345678901234.56789');
    expect(formatAmount(123456789n, 2, { groupSeparator: ',', minimumFractionDigits: 2 })).toBe('1,234,567.89');
    expect(formatAmount(100000n, 2, { groupSeparator: ' ', decimalSeparator: ',', minimumFractionDigits: 2 })).toBe(
      '1 000,00',
    );
    expect(formatAmount(5n, 1, { minimumFractionDigits: 4 })).toBe('0.5');
  });

  it('round-trips', () => {
    for (const text of ['0', '1', '0.1', '999999999.99999999', '0.30000000']) {
      expect(formatAmount(parseAmount(text, 8), 8, { minimumFractionDigits: 0 })).toBe(
        text.replace(/\.?0+$/, '') || '0',
      );
    }
  });
});
