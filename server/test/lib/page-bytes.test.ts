/** A cursor page holds at most `limit` items and `maxBytes` bytes with its envelope, and at least one item. */
import { describe, expect, it } from 'vitest';
import { ENVELOPE_BYTES, itemsWithin } from '../../src/lib/page-bytes.js';

const item = (bytes: number) => `"${'x'.repeat(bytes - 2)}"`;

describe('the items of a page', () => {
  it('are all there when they fit, up to the limit', () => {
    expect(itemsWithin([item(10), item(10), item(10)], 100, 1024)).toBe(3);
    expect(itemsWithin([item(10), item(10), item(10)], 2, 1024)).toBe(2);
    expect(itemsWithin([], 100, 1024)).toBe(0);
  });

  it('end before the item that would pass the budget, counting the commas between them', () => {
    const budget = ENVELOPE_BYTES + 100;
    // 50 + 1 + 49 = 100 bytes fit; one more byte does not.
    expect(itemsWithin([item(50), item(49), item(2)], 100, budget)).toBe(2);
    expect(itemsWithin([item(50), item(50), item(2)], 100, budget)).toBe(1);
  });

  it('count bytes, not characters', () => {
    const budget = ENVELOPE_BYTES + 100;
    const wide = `"${'é'.repeat(40)}"`; // 42 characters, 82 bytes
    expect(itemsWithin([wide, item(20)], 100, budget)).toBe(1);
  });

  it('hold one item even when it alone passes the budget, so that a walk always moves on', () => {
    expect(itemsWithin([item(5000), item(10)], 100, ENVELOPE_BYTES + 100)).toBe(1);
  });
});
