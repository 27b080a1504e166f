/** Timestamps: stored and served as UTC ISO 8601 with milliseconds, which also sorts as text. */

const ISO_WITH_ZONE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|([+-])(\d{2}):(\d{2}))$/i;

const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/**
 * Normalises an ISO 8601 date-time that carries a time zone (`Z` or `±hh:mm`) to
 * `YYYY-MM-DDTHH:mm:ss.sssZ`, or returns null for anything else, including dates that do not exist.
 */
export function normaliseTimestamp(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const m = ISO_WITH_ZONE.exec(value);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const fraction = m[7] ? Number(`0${m[7]}`) : 0;
  const offsetHours = m[10] ? Number(m[10]) : 0;
  const offsetMinutes = m[11] ? Number(m[11]) : 0;
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return null;
  const offset = (m[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes);
  const time = Date.UTC(year, month - 1, day, hour, minute, second) + Math.floor(fraction * 1000) - offset * 60_000;
  const iso = new Date(time).toISOString();
  return iso.length === 24 ? iso : null;
}
