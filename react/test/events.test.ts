/**
 * useAccountEvents against a fake gateway's event stream (real HTTP, Server-Sent Events): the connection's
 * state, each event applied to the cached movements (a new one placed by its time, a changed one replaced),
 * and withMovement's placement rules on their own.
 */
import { signerFromSeed } from '@gateway/client';
import type { InfiniteData } from '@tanstack/react-query';
import { afterEach, describe, expect, it } from 'vitest';
import { useAccountEvents, useGatewayInfiniteQuery, useGatewayQuery, withMovement } from '../src/index.js';
import { type FakeGateway, fakeGateway, movement } from './support/gateway.js';
import { acting, renderHook, waitFor } from './support/render.js';

const signer = signerFromSeed(
  'uncle push human bus echo drastic garden joke sand warfare sentence fossil title color combine',
);
const opened: FakeGateway[] = [];
afterEach(async () => {
  for (const gateway of opened.splice(0)) await gateway.close();
});

const frame = (id: number, data: unknown, event = 'movement') =>
  `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const ids = (pages: { items: { id: string }[] }[] | undefined) => pages?.flatMap((page) => page.items.map((m) => m.id));

describe('useAccountEvents', () => {
  it('is idle until signed in, then tells the connection and applies each event to the cached movements', async () => {
    const gateway = await fakeGateway();
    opened.push(gateway);
    const client = gateway.client();
    const view = await renderHook(client, () => ({
      events: useAccountEvents(),
      list: useGatewayInfiniteQuery('/v1/movements', undefined, { enabled: false }),
      one: useGatewayQuery(
        'get',
        '/v1/movements/{id}',
        { params: { path: { id: movement(1).id } } },
        { enabled: false },
      ),
    }));
    expect(view.current.events.state).toEqual({ status: 'idle' });

    await acting(() => client.login(signer));
    await waitFor('the stream open', () => view.current.events.state.status === 'open' && gateway.streams() === 1);
    await acting(() => view.current.list.refetch());
    await acting(() => view.current.one.refetch());
    await waitFor('the first page and the movement', () => view.current.list.isSuccess && view.current.one.isSuccess);
    expect(ids(view.current.list.data?.pages)).toEqual([movement(0).id, movement(1).id]);

    // A new movement, newer than every other: first in the first page.
    const fresh = movement(-1, { id: '00000000-0000-4000-8000-00000000ffff', status: 'in_progress' });
    gateway.send(frame(1, fresh));
    await waitFor('the new movement in the list', () => view.current.list.data?.pages[0]?.items[0]?.id === fresh.id);
    expect(view.current.events.lastEvent).toMatchObject({ type: 'movement', id: '1' });
    // A change of a cached one: replaced in the list and in its own query.
    const changed = movement(1, { status: 'rejected' });
    gateway.send(frame(2, changed));
    await waitFor('the change', () => view.current.one.data?.status === 'rejected');
    expect(ids(view.current.list.data?.pages)).toEqual([fresh.id, movement(0).id, movement(1).id]);
    expect(view.current.list.data?.pages[0]?.items[2]?.status).toBe('rejected');

    // The server ends the stream: reconnecting, then open again from the last event id.
    gateway.endStreams();
    await waitFor('reconnecting', () => view.current.events.state.status === 'reconnecting');
    await waitFor('open again', () => view.current.events.state.status === 'open' && gateway.streams() === 1);
    const reconnect = gateway.requests.filter((r) => r.url.pathname === '/v1/events').at(-1);
    expect(reconnect?.url.searchParams.get('last_event_id')).toBe('2');

    await acting(() => client.logout());
    await waitFor('idle when signed out', () => view.current.events.state.status === 'idle');
    await waitFor('the stream closed', () => gateway.streams() === 0);
    await view.unmount();
  });
});

describe('withMovement', () => {
  const pages = (hasNext: boolean, ...lists: number[][]): InfiniteData<never, unknown> =>
    ({
      pageParams: lists.map(() => undefined),
      pages: lists.map((list, index) => ({
        type: 'list',
        page_info: { has_next_page: index < lists.length - 1 || hasNext, last_cursor: 'c' },
        items: list.map((i) => movement(i)),
      })),
    }) as unknown as InfiniteData<never, unknown>;
  const of = (data: InfiniteData<unknown, unknown>) => ids(data.pages as { items: { id: string }[] }[]);

  it('places a movement by its time among the loaded pages', () => {
    expect(of(withMovement(pages(true, [0, 2], [4, 6]), movement(3)))).toEqual(
      [0, 2, 3, 4, 6].map((i) => movement(i).id),
    );
    expect(of(withMovement(pages(true, [0, 2], [4, 6]), movement(1)))).toEqual(
      [0, 1, 2, 4, 6].map((i) => movement(i).id),
    );
  });

  it('leaves one older than every loaded movement to the next page, unless the list ends there', () => {
    const open = pages(true, [0, 2]);
    expect(withMovement(open, movement(5))).toBe(open);
    expect(of(withMovement(pages(false, [0, 2]), movement(5)))).toEqual([0, 2, 5].map((i) => movement(i).id));
    expect(of(withMovement(pages(false, []), movement(5)))).toEqual([movement(5).id]);
  });

  it('breaks a tie of times by id, descending, as the server does', () => {
    const twin = movement(2, { id: '00000000-0000-4000-8000-000000000003' });
    expect(of(withMovement(pages(true, [0, 2, 4]), twin))).toEqual([
      movement(0).id,
      twin.id,
      movement(2).id,
      movement(4).id,
    ]);
  });
});
