/**
 * The interface's fee rule with exact decimal arithmetic: received = (amount − fees.flat) × (1 − fees.rate),
 * at the currency's `decimals` (rounded down: the receiver never gets more than the rule gives).
 * @see ../../spec/components/schemas/currency.yaml (Fees)
 */
import type { components } from '@gateway/generated';
import { type Amount, formatAmount, pow10, rescale, toScaled } from './amounts.js';

export type { Amount };

type Terms = Pick<components['schemas']['DepositCurrency'], 'decimals' | 'fees' | 'allowed_amount' | 'status'>;
/**
 * What the receiver gets for `amount` under `terms`, as an exact decimal string with at most `decimals`
 * places; "0" when the flat fee takes it all. Throws on an amount that is not a non-negative decimal.
 */
export function receivedAmount(amount: Amount, terms: Pick<Terms, 'decimals' | 'fees'>): string {
  const a = toScaled(amount);
  const flat = toScaled(terms.fees.flat);
  const rate = toScaled(terms.fees.rate);
  if (!a || !flat || !rate) throw new RangeError('amounts and fees must be non-negative decimals');
  const scale = Math.max(a.scale, flat.scale);
  const net = rescale(a, scale) - rescale(flat, scale);
  if (net <= 0n) return '0';
  const keep = pow10(rate.scale) - rate.units;
  // (net / 10^scale) × (keep / 10^rate.scale), floored to `decimals` places.
  const exact = net * keep;
  const exactScale = scale + rate.scale;
  return formatAmount(rescale({ units: exact, scale: exactScale }, terms.decimals), terms.decimals);
}

export type AmountCheck =
  | { ok: true; received: string }
  | {
      ok: false;
      reason:
        | 'not_a_number'
        | 'too_many_decimals'
        | 'inactive'
        | 'below_minimum'
        | 'above_maximum'
        | 'nothing_received';
      message: string;
    };

/** Whether `amount` can be deposited or withdrawn under `terms`, and what would be received; with a reason when not. */
export function checkAmount(amount: Amount, terms: Terms): AmountCheck {
  const value = toScaled(amount);
  if (!value) return { ok: false, reason: 'not_a_number', message: `${amount} is not a non-negative decimal` };
  if (value.scale > terms.decimals) {
    return { ok: false, reason: 'too_many_decimals', message: `${amount} has more than ${terms.decimals} decimals` };
  }
  if (terms.status !== 'active')
    return { ok: false, reason: 'inactive', message: 'the operation is inactive for this currency and platform' };
  const compare = (bound: number) => {
    const b = toScaled(bound);
    if (!b) return 0;
    const scale = Math.max(value.scale, b.scale);
    const x = rescale(value, scale);
    const y = rescale(b, scale);
    return x < y ? -1 : x > y ? 1 : 0;
  };
  if (compare(terms.allowed_amount.min) < 0) {
    return { ok: false, reason: 'below_minimum', message: `the minimum is ${terms.allowed_amount.min}` };
  }
  if (compare(terms.allowed_amount.max) > 0) {
    return { ok: false, reason: 'above_maximum', message: `the maximum is ${terms.allowed_amount.max}` };
  }
  const received = receivedAmount(amount, terms);
  if (received === '0') return { ok: false, reason: 'nothing_received', message: 'the fees take the whole amount' };
  return { ok: true, received };
}
