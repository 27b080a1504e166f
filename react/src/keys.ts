/**
 * The query keys of the hooks, exported for invalidation, prefetching and cache updates. They are
 * openapi-react-query's (`[method, path]` or `[method, path, init]`), so that its `queryOptions` and these
 * hooks share a cache; an infinite query's key ends with `'pages'` (its data is pages, not a page).
 * A key's prefix matches every query under it: `gatewayKeys.path('/v1/movements')` covers each page and
 * each infinite list of the movements.
 */
import type { GetPath } from './gateway-paths.js';

/** The tail that tells an infinite query's key from a page's. */
export const PAGES = 'pages';

export const gatewayKeys = {
  /** Every query of the hooks (their keys all start with the method, and the hooks read with GET). */
  all: () => ['get'] as const,
  /** Every query of one path, whatever its parameters, pages and infinite lists alike. */
  path: <P extends GetPath>(path: P) => ['get', path] as const,
  /** One GET with its parameters, as `useGatewayQuery('get', path, init)` keys it. */
  query: <P extends GetPath, I>(path: P, init?: I) =>
    init === undefined ? (['get', path] as const) : (['get', path, init] as const),
  /** An infinite list of a cursor path (`useGatewayInfiniteQuery(path, init)`). */
  infinite: <P extends GetPath, I>(path: P, init?: I) => ['get', path, init ?? {}, PAGES] as const,
};

/** Whether a query key is an infinite list's. */
export const isInfiniteKey = (key: readonly unknown[]): boolean => key.length === 4 && key[3] === PAGES;
