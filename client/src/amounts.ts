/**
 * Amounts at a currency's `decimals`, exactly: decimal text to base units (bigint) and back, never through
 * a float's arithmetic. The API's JSON numbers are read as their shortest decimal form (`String(n)`).
 */

/** An amount: a decimal string (exact) or a number (read as its shortest decimal form). */
export type Amount = string | number;

/** An amount as an integer `units` over 10^`scale`. */
export interface Scaled {
  units: bigint;
  scale: number;
}

export const pow10 = (n: number) => 10n ** BigInt(n);

/** A non-negative decimal, with an optional exponent (`String(1e-7)` is `1e-7`). */
const DECIMAL = /^(\d*)(?:\.(\d*))?(?:e([+-]?\d{1,4}))?$/i;

/** The exact value of a non-negative decimal amount; null when it is not one. */
export function toScaled(value: Amount, decimalSeparator = '.'): Scaled | null {
  let text = typeof value === 'number' ? (Number.isFinite(value) && value >= 0 ? String(value) : '') : value.trim();
  if (typeof value === 'string' && decimalSeparator !== '.') {
    if (text.includes('.')) return null;
    text = text.replace(decimalSeparator, '.');
  }
  const match = DECIMAL.exec(text);
  if (!match || (!match[1] && !match[2])) return null;
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  const units = BigInt((match[1] || '0') + fraction);
  const scale = fraction.length - Number(match[3] ?? 0);
  return scale >= 0 ? { units, scale } : { units: units * pow10(-scale), scale: 0 };
}

/** `value` at another scale (rounded down when there are fewer places). */
export const rescale = (value: Scaled, scale: number) =>
  scale >= value.scale ? value.units * pow10(scale - value.scale) : value.units / pow10(value.scale - scale);

export interface AmountFormat {
  /** Keep at least this many fraction digits (default 0: trailing zeros are dropped). */
  minimumFractionDigits?: number;
  /** Between groups of three integer digits (default none), e.g. `,` or a thin space. */
  groupSeparator?: string;
  /** Default `.`. */
  decimalSeparator?: string;
}

/**
 * The decimal text of `units` base units of a currency with `decimals`: `formatAmount(150000000n, 8)` is
 * `"1.5"`. Exact at any size; negative units keep their sign.
 */
export function formatAmount(units: bigint, decimals: number, format: AmountFormat = {}): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(decimals + 1, '0');
  let whole = digits.slice(0, digits.length - decimals);
  let fraction = decimals > 0 ? digits.slice(digits.length - decimals).replace(/0+$/, '') : '';
  fraction = fraction.padEnd(Math.min(decimals, format.minimumFractionDigits ?? 0), '0');
  if (format.groupSeparator) whole = whole.replace(/\B(?=(\d{3})+$)/g, format.groupSeparator);
  return `${negative ? '-' : ''}${whole}${fraction ? `${format.decimalSeparator ?? '.'}${fraction}` : ''}`;
}

/**
 * The base units of `amount` in a currency with `decimals`: `parseAmount('1.5', 8)` is `150000000n`. Takes a
 * non-negative decimal (`"12"`, `"0.5"`, `".5"`; a number as its shortest decimal form); throws a
 * RangeError for anything else or for more fraction digits than `decimals`.
 */
export function parseAmount(amount: Amount, decimals: number, options: { decimalSeparator?: string } = {}): bigint {
  const value = toScaled(amount, options.decimalSeparator);
  if (!value) throw new RangeError(`${amount} is not a non-negative decimal`);
  if (value.scale > decimals) throw new RangeError(`${amount} has more than ${decimals} decimals`);
  return rescale(value, decimals);
}
