import { describe, expect, it } from 'vitest';
import { checkAmount, receivedAmount } from '../src/fees.js';

const usdt = {
  decimals: 6,
  status: 'active' as const,
  allowed_amount: { min: 20, max: 500000 },
  fees: { flat: 5, rate: 0.001 },
};

describe('fees', () => {
  it.each([
    ['1000', '994.005'],
    [1000, '994.005'],
    ['20', '14.985'],
    ['5', '0'],
    ['4.999999', '0'],
    ['0.1', '0'],
    ['123.456789', '118.338332'],
  ])('(%s − 5) × (1 − 0.001) = %s, exactly, rounded down at 6 decimals', (amount, expected) => {
    expect(receivedAmount(amount, usdt)).toBe(expected);
  });

  it('has no float drift where numbers have it', () => {
    // 0.1 + 0.2 in floats is 0.30000000000000004; with flat 0.1 and no rate, 0.3 leaves exactly 0.2.
    expect(receivedAmount('0.3', { decimals: 8, fees: { flat: 0.1, rate: 0 } })).toBe('0.2');
    expect(receivedAmount('1.00000001', { decimals: 8, fees: { flat: 0, rate: 0.5 } })).toBe('0.5');
    expect(receivedAmount('12345678901234.123456', { decimals: 6, fees: { flat: 0, rate: 0 } })).toBe(
      '12345678901234.123456',
    );
  });

  it.each([
    ['abc', 'not_a_number'],
    ['-1', 'not_a_number'],
    ['20.1234567', 'too_many_decimals'],
    ['19.99', 'below_minimum'],
    ['500000.000001', 'above_maximum'],
  ])('checks %s: %s', (amount, reason) => {
    expect(checkAmount(amount, usdt)).toMatchObject({ ok: false, reason });
  });

  it('accepts an amount within the bounds and says what arrives; refuses an inactive operation', () => {
    expect(checkAmount('20', usdt)).toEqual({ ok: true, received: '14.985' });
    expect(checkAmount('500000', usdt)).toEqual({ ok: true, received: '499495.005' });
    expect(checkAmount('100', { ...usdt, status: 'inactive' })).toMatchObject({ ok: false, reason: 'inactive' });
    expect(checkAmount('5', { ...usdt, allowed_amount: { min: 0, max: 10 } })).toMatchObject({
      ok: false,
      reason: 'nothing_received',
    });
  });
});
