/**
 * Hostile values. A value is text to encode with encodeURIComponent, or `raw` text put into the URL exactly
 * as written (traversal sequences, broken percent escapes, a lone surrogate as WTF-8 bytes).
 */

export interface Hostile {
  value: string;
  /** Put into the URL as written instead of percent-encoded. */
  raw?: boolean;
}

const text = (...values: string[]): Hostile[] => values.map((value) => ({ value }));
const raw = (...values: string[]): Hostile[] => values.map((value) => ({ value, raw: true }));

export const HUGE = 'x'.repeat(100_000);

export const numbers: Hostile[] = text(
  '0',
  '-1',
  '-0',
  '1.5',
  '1e2',
  '1e309',
  '-1e309',
  'NaN',
  'Infinity',
  '-Infinity',
  '2147483647',
  '2147483648',
  '4294967296',
  '9007199254740991',
  '9007199254740993',
  '18446744073709551616',
  '9'.repeat(400),
  '0x10',
  '0b11',
  '0o7',
  '+1',
  ' 1',
  '1 ',
  '00001',
  '1_000',
  '١٢',
  'true',
  'null',
  '[]',
  '{}',
);

export const unicode: Hostile[] = [
  ...text(
    '😀',
    '👨‍👩‍👧‍👦',
    '\u202Egnp.exe',
    'مرحبا',
    'שלום',
    'a\u0000b',
    '\u0000',
    'e\u0301\u0301\u0301\u0301',
    '\uFEFF',
    'Ａ',
    'İ',
    'ß',
    '\u2028\u2029',
    '\r\n',
    '\t',
    'ETH\u200B',
    'USDT\u0000',
  ),
  ...raw('%ED%A0%80', '%C0%AF', '%FF%FE', '%E0%A4%A', '%F0%9F%98%80'),
];

export const injection: Hostile[] = text(
  "' OR 1=1--",
  '"; drop table trades; --',
  "'; DROP TABLE movements; --",
  "1' UNION SELECT * FROM refresh_tokens--",
  '\u0024{7*7}',
  '{{7*7}}',
  '#{7*7}',
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  '{"$gt":""}',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '%s%s%s%n',
  'http://169.254.169.254/latest/meta-data/',
  'file:///etc/passwd',
  '\\..\\..\\windows\\win.ini',
  '*',
  '%',
  '_',
);

export const traversal: Hostile[] = [
  ...raw('..%2F..%2Fetc%2Fpasswd', '%2e%2e/', '%2e%2e', '%2e%2e%2f%2e%2e%2fetc%2fpasswd', '..', '.', '%', '%zz', '%00'),
  ...raw('..%5C..%5Cetc%5Cpasswd', '%252e%252e%252f', 'a%2Fb', ';x=1', 'a?b=c', 'a#frag'),
  ...text('../../etc/passwd', '..%2F..%2Fetc%2Fpasswd', '%2e%2e/'),
];

export const base58AndHex: Hostile[] = text(
  '0OIl0OIl',
  '3P9KR33QyXwfTXv8kKtNGZYtgKk3RXSUk37',
  '3P9KR33QyXwfTXv8kKtNGZYtgKk3RXSUk3O',
  '3MwJc5iX7QQGq5ciVFdNK7B5KSEGbUCVxDw',
  '1'.repeat(35),
  'z'.repeat(35),
  '4KxUVD9NtyRJjU3BCvPgJSttoJX7cb3DMdDTNucLN121',
  '11111111111111111111111111111111',
  '0x',
  '0xZZ',
  `0x${'f'.repeat(39)}`,
  `0x${'F'.repeat(40)}`,
  `0x${'0'.repeat(40)}`,
  `0x${'a'.repeat(41)}`,
  '0x3F2b1c25A5f23b193560B97988ee98cBDb480730',
  '0x3f2b1c25a5f23b193560b97988ee98cbdb480730',
  '0X3f2b1c25a5f23b193560b97988ee98cbdb480730',
  'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
  'BC1QAR0SRRR7XFKVY5L643LYDNW9RE59GTZZWF5MDQ',
  'bc1qAR0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
  'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx',
  'bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr',
  '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2',
  '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy',
  '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3',
);

export const cursors: Hostile[] = text(
  'eyJrIjpbIkVUSCJdfQ',
  'A'.repeat(256),
  'A'.repeat(257),
  'AAAA',
  'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  '____',
  '-_-_',
  'eyJ=',
  'ey+/',
  'W10',
  Buffer.from('["x","y"]').toString('base64url'),
);

export const dates: Hostile[] = text(
  '2021-02-30T00:00:00Z',
  '9999-99-99',
  '1628000000',
  '1628000000000',
  '-1',
  '2021-08-01',
  '2021-08-01T00:00:00',
  '2021-08-01T24:00:00Z',
  '2021-08-01T23:59:60Z',
  '2021-08-01T00:00:00+25:00',
  '2021-08-01T00:00:00+23:59',
  '0000-01-01T00:00:00Z',
  '+275760-09-13T00:00:00Z',
  '275760-09-13T00:00:00.001Z',
  '2021-08-01T00:00:00.1234567890Z',
  '2021-13-01T00:00:00Z',
  '2021-08-01t00:00:00z',
  '2021-08-01 00:00:00Z',
  '2021-W31',
  'yesterday',
  '9999-12-31T23:59:59.999Z',
  '1970-01-01T00:00:00Z',
  '2020-02-29T00:00:00Z',
  '2021-08-01T00:00:00-00:00',
  '2021-08-01T00:00:00.000000001+14:00',
);

export const sizes: Hostile[] = text(
  '',
  ' ',
  'a',
  'A'.repeat(32),
  'A'.repeat(33),
  'A'.repeat(64),
  'A'.repeat(65),
  'A'.repeat(100),
  'A'.repeat(101),
  'A'.repeat(128),
  'A'.repeat(129),
  'A'.repeat(256),
  'A'.repeat(257),
  'A'.repeat(5000),
  'A'.repeat(10_000),
  HUGE,
);

export const everything: Hostile[] = [
  ...numbers,
  ...unicode,
  ...injection,
  ...traversal,
  ...base58AndHex,
  ...cursors,
  ...dates,
  ...sizes,
];

/** Percent-encodes a value for a URL (a raw one stays as written). */
export function encode(value: Hostile | string): string {
  if (typeof value === 'string') return encodeURIComponent(value);
  return value.raw ? value.value : encodeURIComponent(value.value);
}
