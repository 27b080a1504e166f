/**
 * A cursor page's byte budget (`x-page-bytes` of the spec's CursorPageInfo): a page ends before the item
 * that would take its body past the budget, so an answer stays small whatever its items hold, and the
 * next page starts after its last item, so nothing is skipped.
 */

/**
 * Bytes kept for the list's envelope around its items: `{"type":"list","page_info":{…},"items":[…]}` with
 * a cursor of at most 256 characters takes about 340.
 */
export const ENVELOPE_BYTES = 512;

/**
 * How many of `documents` (the items' JSON texts, in page order) a page of at most `limit` items and
 * `maxBytes` bytes holds. At least one, when any is given: a walk always moves on (each item's own bounds
 * keep it far below the budget; one stored before the bounds existed is served alone).
 */
export function itemsWithin(documents: readonly string[], limit: number, maxBytes: number): number {
  const budget = maxBytes - ENVELOPE_BYTES;
  const most = Math.min(limit, documents.length);
  // A UTF-16 code unit is at most 3 bytes of UTF-8 (a pair, 2 units, is 4): when the page fits at that bound,
  // it fits, and no document's bytes need counting (a page of 100 movements, about 50 KB of a 256 KiB
  // budget, is always this case).
  let bound = most - 1;
  for (let i = 0; i < most; i++) bound += 3 * (documents[i] as string).length;
  if (bound <= budget) return most;
  let bytes = 0;
  for (let i = 0; i < most; i++) {
    // A comma before every item but the first.
    bytes += Buffer.byteLength(documents[i] as string) + (i > 0 ? 1 : 0);
    if (bytes > budget) return Math.max(1, i);
  }
  return most;
}
