/**
 * Cursor lists as infinite queries. The first page is asked for without `after` and each next one with the
 * previous page's `page_info.last_cursor`, while `has_next_page`. (openapi-react-query's `useInfiniteQuery`
 * sends `after=0` for the first page, which the gateway refuses: 400, code 10206; openapi-typescript issue
 * #2340.) A page that gives back the cursor it was asked for made no progress (a mock answering every
 * request with one example does that): the list ends there rather than repeat it.
 *
 *   const list = useGatewayInfiniteQuery('/v1/movements', { params: { query: { limit: 20 } } });
 *   list.data?.pages.flatMap((page) => page.items); list.fetchNextPage(); list.hasNextPage;
 */
import { type GatewayClient, type GatewayError, type paths, unwrap } from '@gateway/client';
import {
  type InfiniteData,
  infiniteQueryOptions,
  type QueryClient,
  type UseInfiniteQueryOptions,
  type UseInfiniteQueryResult,
  useInfiniteQuery,
} from '@tanstack/react-query';
import type { RequiredKeysOf } from 'openapi-typescript-helpers';
import type { GetPath } from './gateway-paths.js';
import { gatewayKeys } from './keys.js';
import { useGatewayClient } from './provider.js';

type QueryOf<P extends GetPath> = NonNullable<paths[P]['get']['parameters']['query']>;

/** The paths whose GET is a cursor list (it takes `after`). */
export type CursorPath = {
  [P in GetPath]: [QueryOf<P>] extends [never] ? never : 'after' extends keyof QueryOf<P> ? P : never;
}[GetPath];

/** A page of a cursor list, as the spec gives it. */
export type CursorPage<P extends CursorPath> = paths[P]['get'] extends {
  responses: { 200: { content: { 'application/json': infer Page } } };
}
  ? Page
  : never;

type Params<P extends CursorPath> = paths[P]['get']['parameters'];
/** A list's parameters, without `after` (the pages' own). */
export type CursorListParams<P extends CursorPath> = Omit<Params<P>, 'query'> & {
  query?: Omit<NonNullable<Params<P>['query']>, 'after'>;
};
/** What `useGatewayInfiniteQuery` takes: required when the path has parameters of its own. */
export type CursorListInit<P extends CursorPath> = { params?: CursorListParams<P> } & (RequiredKeysOf<
  CursorListParams<P>
> extends never
  ? unknown
  : { params: CursorListParams<P> });

type Cursor = string | undefined;
export type CursorListData<P extends CursorPath> = InfiniteData<CursorPage<P>, Cursor>;
export type CursorListOptions<P extends CursorPath> = Omit<
  UseInfiniteQueryOptions<CursorPage<P>, GatewayError, CursorListData<P>, readonly unknown[], Cursor>,
  'queryKey' | 'queryFn' | 'initialPageParam' | 'getNextPageParam'
>;

interface PageInfo {
  page_info: { has_next_page: boolean; last_cursor?: string | null };
}

/** The cursor of the page after `page`, or undefined at the end (or when it made no progress). */
export function nextCursor(page: PageInfo, asked: Cursor): Cursor {
  const next = page.page_info.has_next_page ? (page.page_info.last_cursor ?? undefined) : undefined;
  return next === asked ? undefined : next;
}

type Get = (url: string, init: unknown) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

/** The infinite query of a cursor list over `client`, for `useInfiniteQuery`, prefetching and loaders. */
export function gatewayInfiniteQueryOptions<P extends CursorPath>(
  client: GatewayClient,
  path: P,
  init?: CursorListInit<P>,
) {
  const get = client.api.GET as unknown as Get;
  return infiniteQueryOptions<CursorPage<P>, GatewayError, CursorListData<P>, readonly unknown[], Cursor>({
    queryKey: gatewayKeys.infinite(path, init),
    queryFn: async ({ pageParam, signal }) => {
      const params = (init?.params ?? {}) as { query?: Record<string, unknown> };
      const query = pageParam === undefined ? params.query : { ...params.query, after: pageParam };
      return unwrap(await get(path, { ...init, params: { ...params, query }, signal })) as CursorPage<P>;
    },
    initialPageParam: undefined,
    getNextPageParam: (last, _pages, asked) => nextCursor(last as PageInfo, asked),
  });
}

/** `useInfiniteQuery` over a cursor list of the spec (movements, platforms, an address's trades). */
export function useGatewayInfiniteQuery<P extends CursorPath>(
  path: P,
  ...[init, options, queryClient]: RequiredKeysOf<CursorListParams<P>> extends never
    ? [init?: CursorListInit<P>, options?: CursorListOptions<P>, queryClient?: QueryClient]
    : [init: CursorListInit<P>, options?: CursorListOptions<P>, queryClient?: QueryClient]
): UseInfiniteQueryResult<CursorListData<P>, GatewayError> {
  const client = useGatewayClient();
  return useInfiniteQuery({ ...gatewayInfiniteQueryOptions(client, path, init), ...options }, queryClient);
}
