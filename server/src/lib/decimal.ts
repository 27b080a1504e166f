/**
 * Exact decimal amounts. Amounts are kept as canonical decimal text (no exponent, no trailing zeros) and
 * checked against the currency's number of decimals, so nothing drifts through storage; they become JSON
 * numbers only when served, as the spec describes them.
 */

/** Canonical decimal text: `0`, `12`, `0.0128`, never `1e-7`, `012` or `1.50`. */
export type DecimalText = string & { readonly __decimal: unique symbol };

const DECIMAL = /^(0|[1-9]\d{0,29})(?:\.(\d{1,18}))?$/;

/**
 * Parses a non-negative decimal given as text (or as a number whose shortest representation is plain
 * decimal) into canonical text, or returns null. At most 30 integer and 18 fractional digits.
 */
export function parseDecimal(value: unknown): DecimalText | null {
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
  if (typeof text !== 'string') return null;
  const match = DECIMAL.exec(text.trim());
  if (!match) return null;
  const [, whole, fraction = ''] = match;
  const trimmed = fraction.replace(/0+$/, '');
  return (trimmed ? `${whole}.${trimmed}` : whole) as DecimalText;
}

/** Number of fractional digits of a canonical decimal. */
export function fractionDigits(value: DecimalText): number {
  const dot = value.indexOf('.');
  return dot < 0 ? 0 : value.length - dot - 1;
}

/** Compares two canonical decimals exactly. */
export function compareDecimal(a: DecimalText, b: DecimalText): -1 | 0 | 1 {
  const [aw = '', af = ''] = a.split('.');
  const [bw = '', bf = ''] = b.split('.');
  if (aw.length !== bw.length) return aw.length < bw.length ? -1 : 1;
  const width = Math.max(af.length, bf.length);
  const x = aw + af.padEnd(width, '0');
  const y = bw + bf.padEnd(width, '0');
  return x === y ? 0 : x < y ? -1 : 1;
}

/** The JSON number of a canonical decimal (what the spec serves). */
export function decimalToNumber(value: string): number {
  return Number(value);
}
