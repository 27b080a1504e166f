/** Cursor pages: decode `after` for a list's scope (400 code 10206 when it is not ours), encode the next. */
import type { Services } from '../context.js';
import type { CursorKeys } from '../domain/cursor.js';
import { ApiError } from '../errors.js';

export function decodeAfter(
  context: Services,
  scope: string,
  after: string | undefined,
  arity: number,
): CursorKeys | null {
  if (after === undefined) return null;
  const keys = context.cursors.decode(scope, after, arity);
  if (!keys?.every((k) => typeof k === 'string')) {
    throw new ApiError('invalid_cursor', undefined, { details: { parameter: 'after' } });
  }
  return keys;
}

/** `page_info` of a cursor page: the last item's keys when more exist, else null. */
export function cursorPageInfo(context: Services, scope: string, hasNext: boolean, lastKeys: CursorKeys | undefined) {
  return {
    has_next_page: hasNext,
    last_cursor: hasNext && lastKeys ? context.cursors.encode(scope, lastKeys) : null,
  };
}
