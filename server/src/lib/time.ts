/** Timestamps: stored and served as UTC ISO 8601 with milliseconds, which also sorts as text. */

const ISO_WITH_ZONE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|([+-])(\d{2}):(\d{2}))$/i;

const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const daysIn = (year: number, month: number) => (month === 2 && isLeap(year) ? 29 : (DAYS[month - 1] as number));

/**
 * Normalises an ISO 8601 date-time that carries a time zone (`Z` or `±hh:mm`) to
 * `YYYY-MM-DDTHH:mm:ss.sssZ` (fractions beyond milliseconds are cut), or returns null for anything else,
 * including dates that do not exist and instants outside the years 0000–9999 once in UTC.
 *
 * A feed line carries two of these and each is read twice (the schema's format check, then the row), so
 * the common case, a time already in that form, is answered from its digits without building a Date.
 */
export function normaliseTimestamp(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const m = ISO_WITH_ZONE.exec(value);
  if (!m) return null;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = Number(m[6]);
  const offsetHours = m[10] ? Number(m[10]) : 0;
  const offsetMinutes = m[11] ? Number(m[11]) : 0;
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return null;
  // Milliseconds from the fraction's first three digits (cut, not rounded): `.5` is 500, `.1239` is 123.
  const fraction = m[7] ?? '';
  if (fraction.length === 4 && m[8] === 'Z' && value[10] === 'T') return value;
  const millis = Number(`${fraction.slice(1)}000`.slice(0, 3));
  const offset = (m[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes);
  const time = new Date(Date.UTC(2000, month - 1, day, hour, minute, second, millis));
  // Date.UTC reads the years 0–99 as 1900–1999: the year is set on its own.
  time.setUTCFullYear(year, month - 1, day);
  time.setTime(time.getTime() - offset * 60_000);
  const iso = time.toISOString();
  return iso.length === 24 ? iso : null;
}
