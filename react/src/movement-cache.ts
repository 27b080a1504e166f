/**
 * An account event applied to the cached movements: the movement replaced where a cached page holds it
 * (a status change), or placed where it belongs among the loaded pages of an infinite list (newest
 * `created_at` first, ties by id descending, as `GET /v1/movements` orders them); past the loaded pages it
 * is left for the next page to bring. Plain page queries that do not hold it are refetched, and a
 * `reset` (the events since the position resumed from are lost) refetches every movements query.
 */
import type { components, GatewayEvent } from '@gateway/client';
import type { InfiniteData, QueryClient } from '@tanstack/react-query';
import { gatewayKeys, isInfiniteKey } from './keys.js';

type Movement = components['schemas']['Movement'];
type MovementList = components['schemas']['MovementList'];

/** Whether `a` comes before `b` in the list (newer first, ties by id descending). */
const before = (a: Movement, b: Movement) =>
  a.created_at > b.created_at || (a.created_at === b.created_at && a.id > b.id);

const replaced = (page: MovementList, movement: Movement): MovementList | undefined => {
  const at = page.items.findIndex((item) => item.id === movement.id);
  if (at < 0) return undefined;
  const items = page.items.slice();
  items[at] = movement;
  return { ...page, items };
};

/** The loaded pages with `movement` in its place (the same object when it has none among them). */
export function withMovement<C>(
  data: InfiniteData<MovementList, C>,
  movement: Movement,
): InfiniteData<MovementList, C> {
  const { pages } = data;
  for (let index = 0; index < pages.length; index++) {
    const page = replaced(pages[index] as MovementList, movement);
    if (page) return { ...data, pages: pages.map((p, i) => (i === index ? page : p)) };
  }
  for (let index = 0; index < pages.length; index++) {
    const page = pages[index] as MovementList;
    let at = page.items.findIndex((item) => before(movement, item));
    // After the last item of the last page, if that page ends the list.
    if (at < 0 && index === pages.length - 1 && !page.page_info.has_next_page) at = page.items.length;
    if (at < 0) continue;
    const items = [...page.items.slice(0, at), movement, ...page.items.slice(at)];
    return { ...data, pages: pages.map((p, i) => (i === index ? { ...page, items } : p)) };
  }
  return data;
}

/** Applies one event of `GET /v1/events` to the cached movements of `queryClient`. */
export function applyAccountEvent(queryClient: QueryClient, event: GatewayEvent): void {
  const movements = gatewayKeys.path('/v1/movements');
  if (event.type === 'reset') {
    void queryClient.invalidateQueries({ queryKey: movements });
    return;
  }
  const { movement } = event;
  queryClient.setQueriesData<Movement>(
    { queryKey: gatewayKeys.query('/v1/movements/{id}', { params: { path: { id: movement.id } } }) },
    (cached) => (cached ? movement : cached),
  );
  const stale: (readonly unknown[])[] = [];
  for (const query of queryClient.getQueryCache().findAll({ queryKey: movements })) {
    const data = query.state.data;
    if (data === undefined) continue;
    if (isInfiniteKey(query.queryKey)) {
      queryClient.setQueryData(query.queryKey, withMovement(data as InfiniteData<MovementList>, movement));
      continue;
    }
    const page = replaced(data as MovementList, movement);
    if (page) queryClient.setQueryData(query.queryKey, page);
    else stale.push(query.queryKey);
  }
  for (const queryKey of stale) void queryClient.invalidateQueries({ queryKey, exact: true });
}
