/**
 * The typed queries (openapi-react-query's, over the client) and the cursor lists as infinite queries,
 * against a fake gateway on a real HTTP server: data typed from the spec, every failure a GatewayError with
 * its kind and request id, the first page asked for without `after`.
 */
import { GatewayError, signerFromSeed } from '@gateway/client';
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { gatewayKeys, useGatewayInfiniteQuery, useGatewayMutation, useGatewayQuery } from '../src/index.js';
import { type FakeGateway, fakeGateway, movement } from './support/gateway.js';
import { acting, renderHook, waitFor } from './support/render.js';

const signer = signerFromSeed(
  'uncle push human bus echo drastic garden joke sand warfare sentence fossil title color combine',
);
const opened: FakeGateway[] = [];
const started = async (...args: Parameters<typeof fakeGateway>) => {
  const gateway = await fakeGateway(...args);
  opened.push(gateway);
  return gateway;
};
afterEach(async () => {
  for (const gateway of opened.splice(0)) await gateway.close();
});

describe('useGatewayQuery', () => {
  it('reads a GET of the spec, typed, under openapi-react-query’s key', async () => {
    const gateway = await started();
    const init = { params: { path: { id: 'ETH' } } };
    const view = await renderHook(gateway.client(), () => useGatewayQuery('get', '/v1/platforms/{id}', init));
    await waitFor('the platform', () => view.current.isSuccess);
    expect(view.current.data?.name).toBe('Ethereum');
    expectTypeOf(view.current.data).toEqualTypeOf<
      import('@gateway/client').components['schemas']['Platform'] | undefined
    >();
    expect(view.queryClient.getQueryData(gatewayKeys.query('/v1/platforms/{id}', init))).toEqual(view.current.data);
    await view.unmount();
  });

  it('fails with a GatewayError of kind api: status, code and the request id of the answer', async () => {
    const gateway = await started();
    const view = await renderHook(gateway.client(), () =>
      useGatewayQuery('get', '/v1/platforms/{id}', { params: { path: { id: 'XYZ' } } }),
    );
    await waitFor('the error', () => view.current.isError);
    const error = view.current.error;
    expectTypeOf(error).toEqualTypeOf<GatewayError | null>();
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ kind: 'api', status: 404, code: 10402 });
    expect(error?.requestId).toMatch(/^fake-\d+$/);
    // Not retried by the query on top of the client's own policy.
    expect(gateway.requests.filter((r) => r.url.pathname === '/v1/platforms/XYZ')).toHaveLength(1);
    await view.unmount();
  });

  it('fails with kind network when nothing answers', async () => {
    const gateway = await started();
    const client = gateway.client();
    await gateway.close();
    const view = await renderHook(client, () =>
      useGatewayQuery('get', '/v1/platforms/{id}', { params: { path: { id: 'ETH' } } }),
    );
    await waitFor('the error', () => view.current.isError);
    expect(view.current.error).toMatchObject({ kind: 'network', status: 0 });
    await view.unmount();
  });
});

describe('useGatewayInfiniteQuery', () => {
  it('asks for the first page without `after`, then follows last_cursor to the end', async () => {
    const gateway = await started();
    const client = gateway.client();
    await client.login(signer);
    const view = await renderHook(client, () =>
      useGatewayInfiniteQuery('/v1/movements', { params: { query: { limit: 2 } } }),
    );
    await waitFor('the first page', () => view.current.isSuccess);
    const first = gateway.movementRequests()[0];
    expect(first?.url.searchParams.has('after')).toBe(false);
    expect(first?.url.searchParams.get('limit')).toBe('2');
    while (view.current.hasNextPage) {
      const pages = view.current.data?.pages.length ?? 0;
      await acting(() => view.current.fetchNextPage());
      await waitFor('the next page', () => (view.current.data?.pages.length ?? 0) > pages);
    }
    const ids = view.current.data?.pages.flatMap((page) => page.items.map((item) => item.id));
    expect(ids).toEqual([0, 1, 2, 3, 4].map((i) => movement(i).id));
    expect(gateway.movementRequests().map((r) => r.url.searchParams.get('after'))).toEqual([null, 'c2', 'c4']);
    expect(
      view.queryClient.getQueryData(gatewayKeys.infinite('/v1/movements', { params: { query: { limit: 2 } } })),
    ).toBe(view.current.data);
    await view.unmount();
  });

  it('ends a list whose page gives back the cursor it was asked with (a mock’s one example)', async () => {
    const gateway = await started(undefined, { repeatCursor: true });
    const client = gateway.client();
    await client.login(signer);
    const view = await renderHook(client, () => useGatewayInfiniteQuery('/v1/movements'));
    await waitFor('the first page', () => view.current.isSuccess);
    expect(view.current.hasNextPage).toBe(true);
    await acting(() => view.current.fetchNextPage());
    await waitFor('the second page', () => view.current.data?.pages.length === 2);
    expect(view.current.hasNextPage).toBe(false);
    expect(gateway.movementRequests().map((r) => r.url.searchParams.get('after'))).toEqual([null, 'same']);
    await view.unmount();
  });

  it('types its paths and parameters from the spec', () => {
    type Hook = typeof useGatewayInfiniteQuery;
    expectTypeOf<Parameters<Hook>[0]>().toEqualTypeOf<
      | '/v1/movements'
      | '/v1/platforms'
      | '/v1/addresses/{ledger_address}/trades/{amount_currency_id}/{price_currency_id}'
    >();
    const never = () => {
      // @ts-expect-error: `after` is the pages' own
      useGatewayInfiniteQuery('/v1/movements', { params: { query: { after: 'x' } } });
      // @ts-expect-error: an offset list is no cursor list
      useGatewayInfiniteQuery('/v1/deposit/currencies');
      // @ts-expect-error: the trades of an address need its path parameters
      useGatewayInfiniteQuery('/v1/addresses/{ledger_address}/trades/{amount_currency_id}/{price_currency_id}');
    };
    expect(never).toBeTypeOf('function');
  });
});

describe('useGatewayMutation', () => {
  it('posts to an operation of the spec, typed, and fails with a GatewayError', async () => {
    const gateway = await started();
    const view = await renderHook(gateway.client(), () => useGatewayMutation('post', '/v1/oauth2/revoke'));
    const form = {
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      bodySerializer: (body: unknown) => new URLSearchParams(body as Record<string, string>).toString(),
    };
    await acting(() =>
      view.current.mutateAsync({ body: { token: 'rt-1', token_type_hint: 'refresh_token' }, ...form }),
    );
    const revoke = gateway.requests.find((r) => r.url.pathname === '/v1/oauth2/revoke');
    expect(new URLSearchParams(revoke?.body).get('token')).toBe('rt-1');
    await gateway.close();
    const failed = await acting(() =>
      view.current.mutateAsync({ body: { token: 'rt-1' }, ...form }).catch((e: unknown) => e),
    );
    expect(failed).toBeInstanceOf(GatewayError);
    expect(failed).toMatchObject({ kind: 'network' });
    await view.unmount();
  });
});
