/** Async iteration over the two kinds of pages: cursor pages (`last_cursor`) and offset pages (`has_next_page`). */

interface CursorPage<T> {
  items: T[];
  page_info: { has_next_page: boolean; last_cursor: string | null };
}
interface OffsetPage<T> {
  items: T[];
  page_info: { has_next_page: boolean };
}

/**
 * Every item of a cursor-paged list, page by page, following `last_cursor`. A page that gives back the cursor
 * it was asked for made no progress (a mock answering every request with its example page does that): the
 * list ends there, instead of asking for the same page forever.
 */
export async function* cursorItems<T>(page: (after: string | undefined) => Promise<CursorPage<T>>): AsyncGenerator<T> {
  let after: string | undefined;
  do {
    const current = await page(after);
    const next = current.page_info.has_next_page ? (current.page_info.last_cursor ?? undefined) : undefined;
    if (after !== undefined && next === after) return;
    yield* current.items;
    after = next;
  } while (after !== undefined);
}

/** Every item of an offset-paged list, while `has_next_page`. */
export async function* offsetItems<T>(page: (offset: number) => Promise<OffsetPage<T>>): AsyncGenerator<T> {
  let offset = 0;
  for (;;) {
    const current = await page(offset);
    yield* current.items;
    if (!current.page_info.has_next_page || current.items.length === 0) return;
    offset += current.items.length;
  }
}
