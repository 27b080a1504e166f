/**
 * crypto/hmac.ts against RFC 4231's test vectors (HMAC-SHA-256) and node:crypto's own HMAC: keys shorter than,
 * as long as and longer than the block, messages in one part or several.
 * @see https://www.rfc-editor.org/rfc/rfc4231#section-4
 */
import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hmacSha256 } from '../../src/crypto/hmac.js';

const hex = (text: string) => Buffer.from(text, 'hex');
const utf8 = (text: string) => Buffer.from(text, 'utf8');

/** RFC 4231 section 4: test cases 1, 2, 3, 4, 6 and 7 (5 is a truncated MAC). */
const VECTORS = [
  {
    key: hex('0b'.repeat(20)),
    data: utf8('Hi There'),
    mac: 'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7',
  },
  {
    key: utf8('Jefe'),
    data: utf8('what do ya want for nothing?'),
    mac: '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
  },
  {
    key: hex('aa'.repeat(20)),
    data: hex('dd'.repeat(50)),
    mac: '773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe',
  },
  {
    key: hex('0102030405060708090a0b0c0d0e0f10111213141516171819'),
    data: hex('cd'.repeat(50)),
    mac: '82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b',
  },
  {
    key: hex('aa'.repeat(131)),
    data: utf8('Test Using Larger Than Block-Size Key - Hash Key First'),
    mac: '60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54',
  },
  {
    key: hex('aa'.repeat(131)),
    data: utf8(
      'This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.',
    ),
    mac: '9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2',
  },
];

describe('hmacSha256', () => {
  it.each(VECTORS.map((v, i) => ({ ...v, case: i + 1 })))('gives RFC 4231 vector $case', ({ key, data, mac }) => {
    expect(hmacSha256(key)(data).toString('hex')).toBe(mac);
  });

  it('gives the MAC of the parts joined, as createHmac does, for keys of 0 to 200 bytes', () => {
    for (const length of [0, 1, 31, 32, 63, 64, 65, 128, 200]) {
      const key = randomBytes(length);
      const parts = [randomBytes(7), Buffer.alloc(0), randomBytes(300)];
      const expected = createHmac('sha256', key).update(Buffer.concat(parts)).digest();
      expect(hmacSha256(key)(...parts).equals(expected), `key of ${length} bytes`).toBe(true);
    }
  });
});
