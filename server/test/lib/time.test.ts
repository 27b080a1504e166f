import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normaliseTimestamp } from '../../src/lib/time.js';

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** The instant an ISO text names, by an independent route: JavaScript's own parser, in ms. */
function reference(parts: {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  fraction: string;
  zone: string;
}): string | null {
  const { year, month, day, hour, minute, second, fraction, zone } = parts;
  const probe = new Date(0);
  probe.setUTCFullYear(year, month - 1, day);
  if (probe.getUTCMonth() !== month - 1 || probe.getUTCDate() !== day) return null; // no such day
  const millis = `${fraction}000`.slice(0, 3);
  const text = `${pad(year, 4)}-${pad(month)}-${pad(day)}T${pad(hour)}:${pad(minute)}:${pad(second)}.${millis}${zone}`;
  const time = Date.parse(text);
  if (Number.isNaN(time)) return null;
  const iso = new Date(time).toISOString();
  return iso.length === 24 ? iso : null;
}

describe('normaliseTimestamp', () => {
  it('gives the instant in UTC with milliseconds, as an independent parse does', () => {
    fc.assert(
      fc.property(
        fc.record({
          year: fc.integer({ min: 0, max: 9999 }),
          month: fc.integer({ min: 1, max: 12 }),
          day: fc.integer({ min: 1, max: 31 }),
          hour: fc.integer({ min: 0, max: 23 }),
          minute: fc.integer({ min: 0, max: 59 }),
          second: fc.integer({ min: 0, max: 59 }),
          fraction: fc.stringMatching(/^\d{0,9}$/),
          zone: fc.oneof(
            fc.constant('Z'),
            fc
              .tuple(fc.constantFrom('+', '-'), fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
              .map(([sign, h, m]) => `${sign}${pad(h)}:${pad(m)}`),
          ),
        }),
        (parts) => {
          const { year, month, day, hour, minute, second, fraction, zone } = parts;
          const text = `${pad(year, 4)}-${pad(month)}-${pad(day)}T${pad(hour)}:${pad(minute)}:${pad(second)}${fraction ? `.${fraction}` : ''}${zone}`;
          expect(normaliseTimestamp(text)).toBe(reference(parts));
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('keeps a time already in the stored form and reads the other forms to it', () => {
    expect(normaliseTimestamp('2021-01-01T00:00:00.146Z')).toBe('2021-01-01T00:00:00.146Z');
    expect(normaliseTimestamp('2021-01-01t00:00:00.146z')).toBe('2021-01-01T00:00:00.146Z');
    expect(normaliseTimestamp('2021-01-01T00:00:00Z')).toBe('2021-01-01T00:00:00.000Z');
    expect(normaliseTimestamp('2021-01-01T00:00:00.5Z')).toBe('2021-01-01T00:00:00.500Z');
    expect(normaliseTimestamp('2021-01-01T00:00:00.123999999Z')).toBe('2021-01-01T00:00:00.123Z');
    expect(normaliseTimestamp('2021-01-01T01:30:00.000+01:30')).toBe('2021-01-01T00:00:00.000Z');
    expect(normaliseTimestamp('2020-12-31T23:00:00.000-01:00')).toBe('2021-01-01T00:00:00.000Z');
    expect(normaliseTimestamp('2024-02-29T12:00:00.000Z')).toBe('2024-02-29T12:00:00.000Z');
    // Years below 100 are not years of the 1900s.
    expect(normaliseTimestamp('0050-06-01T00:00:00Z')).toBe('0050-06-01T00:00:00.000Z');
    expect(normaliseTimestamp('0000-01-01T00:00:00.000+00:00')).toBe('0000-01-01T00:00:00.000Z');
  });

  it('refuses what is not a date-time with a zone, days that do not exist and years it cannot store', () => {
    for (const text of [
      '2023-02-29T00:00:00.000Z',
      '2100-02-29T00:00:00.000Z',
      '2021-04-31T00:00:00.000Z',
      '2021-13-01T00:00:00.000Z',
      '2021-01-01T24:00:00.000Z',
      '2021-01-01T00:60:00.000Z',
      '2021-01-01T00:00:60.000Z',
      '2021-01-01T00:00:00.000',
      '2021-01-01 00:00:00.000Z',
      '2021-01-01T00:00:00.000+24:00',
      '0000-01-01T00:00:00.000+00:01',
      '9999-12-31T23:59:59.999-00:01',
      ' 2021-01-01T00:00:00.000Z',
    ]) {
      expect(normaliseTimestamp(text), text).toBeNull();
    }
    expect(normaliseTimestamp(1609459200000)).toBeNull();
  });
});
