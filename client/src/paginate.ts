/**
 * The two kinds of pages: cursor pages (`last_cursor`) and offset pages (`has_next_page`); read item by item
 * (async iteration) or page by page, forward and back, for a UI's Previous and Next (`pages()`).
 */

interface CursorPage<T> {
  items: T[];
  page_info: { has_next_page: boolean; last_cursor: string | null };
}
interface OffsetPage<T> {
  items: T[];
  page_info: { has_next_page: boolean };
}

/** One page of a list, loaded: its items and where it sits. */
export interface Page<T> {
  readonly items: T[];
  /** 0 for the page the pager started from. */
  readonly index: number;
  /**
   * What this page was asked for with: the `after` cursor (or the offset, as text); undefined for the first
   * page. Keep it to come back to the page later: `pages({ cursor })`.
   */
  readonly cursor: string | undefined;
  /** The cursor of the page after this one; undefined on the last page. */
  readonly nextCursor: string | undefined;
  readonly hasNext: boolean;
  readonly hasPrevious: boolean;
}

/**
 * Page-wise reading for Previous/Next: `next()` loads the page after the current one (the first at the
 * start), `previous()` the one before (read again, so it is current). Calls take turns. Iterating gives
 * the pages onward from the current one.
 */
export interface Pager<T> extends AsyncIterable<Page<T>> {
  /** The page shown; undefined until one is loaded. */
  readonly current: Page<T> | undefined;
  /** Loads the first page (the one the pager started from). */
  first(): Promise<Page<T>>;
  /** Loads the page after the current one (the first page when none is loaded); RangeError on the last page. */
  next(): Promise<Page<T>>;
  /** Loads the page before the current one; RangeError on the first. */
  previous(): Promise<Page<T>>;
}

/** A list: its items by async iteration, or its pages for a Previous/Next UI. */
export interface PagedList<T> extends AsyncIterable<T> {
  /** A pager over the list's pages, from its first page or from a page's `cursor` kept earlier. */
  pages(options?: { cursor?: string }): Pager<T>;
}

/** A page as a list's loader gives it: its items and the cursor of the next one, if any. */
type Loaded<T> = { items: T[]; next: string | undefined };
type Loader<T> = (cursor: string | undefined) => Promise<Loaded<T>>;

function pager<T>(load: Loader<T>, start: string | undefined): Pager<T> {
  /** The cursor of each page from the start up to the current one. */
  const cursors: (string | undefined)[] = [start];
  let current: Page<T> | undefined;
  let turn: Promise<unknown> = Promise.resolve();
  const show = async (index: number) => {
    const cursor = cursors[index];
    const { items, next } = await load(cursor);
    cursors.length = index + 1;
    cursors.push(next);
    current = { items, index, cursor, nextCursor: next, hasNext: next !== undefined, hasPrevious: index > 0 };
    return current;
  };
  /** Calls take turns: a second `next()` before the first ends goes one page further. */
  const queued = (step: () => Promise<Page<T>>) => {
    const run = turn.then(step);
    turn = run.catch(() => undefined);
    return run;
  };
  const self: Pager<T> = {
    get current() {
      return current;
    },
    first: () => queued(() => show(0)),
    next: () =>
      queued(async () => {
        if (!current) return show(0);
        if (!current.hasNext) throw new RangeError('this is the last page');
        return show(current.index + 1);
      }),
    previous: () =>
      queued(async () => {
        if (!current || current.index === 0) throw new RangeError('this is the first page');
        return show(current.index - 1);
      }),
    async *[Symbol.asyncIterator]() {
      let page = current ?? (await self.first());
      for (;;) {
        yield page;
        if (!page.hasNext) return;
        page = await self.next();
      }
    },
  };
  return self;
}

/** A list of `load`'s pages: its items one by one, or its pages. */
function pagedList<T>(load: Loader<T>): PagedList<T> {
  return {
    async *[Symbol.asyncIterator]() {
      let cursor: string | undefined;
      do {
        const page = await load(cursor);
        yield* page.items;
        cursor = page.next;
      } while (cursor !== undefined);
    },
    pages: (options = {}) => pager(load, options.cursor),
  };
}

/**
 * A cursor-paged list, following `last_cursor`. A page that gives back the cursor it was asked for made no
 * progress (a mock answering every request with its example page does that): the list ends there,
 * instead of asking for the same page forever.
 */
export function cursorList<T>(page: (after: string | undefined) => Promise<CursorPage<T>>): PagedList<T> {
  return pagedList(async (after) => {
    const { items, page_info } = await page(after);
    const next = page_info.has_next_page ? (page_info.last_cursor ?? undefined) : undefined;
    // No progress: the page asked for again is not read twice.
    return after !== undefined && next === after ? { items: [], next: undefined } : { items, next };
  });
}

/** An offset-paged list, while `has_next_page` (the cursor is the offset, as text). */
export function offsetList<T>(page: (offset: number) => Promise<OffsetPage<T>>): PagedList<T> {
  return pagedList(async (cursor) => {
    const offset = Number(cursor ?? 0);
    const { items, page_info } = await page(offset);
    return { items, next: page_info.has_next_page && items.length > 0 ? String(offset + items.length) : undefined };
  });
}

/** Every item of a cursor-paged list, page by page (kept for compatibility: `cursorList`). */
export async function* cursorItems<T>(page: (after: string | undefined) => Promise<CursorPage<T>>): AsyncGenerator<T> {
  yield* cursorList(page);
}

/** Every item of an offset-paged list, while `has_next_page` (kept for compatibility: `offsetList`). */
export async function* offsetItems<T>(page: (offset: number) => Promise<OffsetPage<T>>): AsyncGenerator<T> {
  yield* offsetList(page);
}
