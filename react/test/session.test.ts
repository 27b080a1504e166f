/**
 * The session in React: useSession follows the client's session store (loading, signed in, signed out,
 * also when another client of the same storage signs out), useLogin and useLogout go through the token
 * endpoint and the revocation, and a sign-out forgets the cached answers.
 */
import { type KeyValueStorage, signerFromSeed, webStorage } from '@gateway/client';
import { afterEach, describe, expect, it } from 'vitest';
import { gatewayKeys, useGatewayInfiniteQuery, useLogin, useLogout, useSession } from '../src/index.js';
import { type FakeGateway, fakeGateway } from './support/gateway.js';
import { acting, renderHook, waitFor } from './support/render.js';

const signer = signerFromSeed(
  'uncle push human bus echo drastic garden joke sand warfare sentence fossil title color combine',
);
const opened: FakeGateway[] = [];
afterEach(async () => {
  for (const gateway of opened.splice(0)) await gateway.close();
});

/** One origin's storage as two tabs' clients share it (they hear each other through a BroadcastChannel). */
function sharedStorage(): KeyValueStorage {
  const items = new Map<string, string>();
  return {
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
    removeItem: (key) => void items.delete(key),
  };
}

describe('useSession, useLogin, useLogout', () => {
  it('shows the sign-in and the sign-out, which revokes the sign-in and forgets the cached movements', async () => {
    const gateway = await fakeGateway();
    opened.push(gateway);
    const client = gateway.client();
    const view = await renderHook(client, () => ({
      session: useSession(),
      login: useLogin(),
      logout: useLogout(),
    }));
    await waitFor('the storage read', () => view.current.session.status !== 'loading');
    expect(view.current.session).toEqual({ status: 'signed_out', tokens: null });

    await acting(() => view.current.login.mutateAsync({ signer, lifetime: 600 }));
    await waitFor('signed in', () => view.current.session.status === 'signed_in');
    expect(view.current.session.tokens?.accessToken).toBe('at-1');
    const token = gateway.requests.find((r) => r.url.pathname === '/v1/oauth2/token');
    expect(new URLSearchParams(token?.body).get('grant_type')).toBe('password');

    await acting(() =>
      view.queryClient.prefetchInfiniteQuery({
        queryKey: gatewayKeys.infinite('/v1/movements'),
        queryFn: () => 'cached',
        initialPageParam: undefined,
      }),
    );
    expect(view.queryClient.getQueryCache().findAll({ queryKey: gatewayKeys.path('/v1/movements') })).toHaveLength(1);

    await acting(() => view.current.logout.mutateAsync());
    await waitFor('signed out', () => view.current.session.status === 'signed_out');
    const revoke = gateway.requests.find((r) => r.url.pathname === '/v1/oauth2/revoke');
    expect(new URLSearchParams(revoke?.body).get('token')).toBe('rt-1');
    expect(view.queryClient.getQueryCache().findAll({ queryKey: gatewayKeys.all() })).toEqual([]);
    await view.unmount();
  });

  it('hears a sign-out in another tab sharing the storage', async () => {
    const gateway = await fakeGateway();
    opened.push(gateway);
    const storage = sharedStorage();
    const tabA = gateway.client({ storage: webStorage(storage, 'gateway.session', { events: null }) });
    const tabB = gateway.client({ storage: webStorage(storage, 'gateway.session', { events: null }) });
    await tabA.login(signer);
    const view = await renderHook(tabB, () => {
      const session = useSession();
      // As an app does: the account's lists are read while signed in.
      const movements = useGatewayInfiniteQuery('/v1/movements', undefined, {
        enabled: session.status === 'signed_in',
      });
      return { session, movements };
    });
    await waitFor('signed in from the storage', () => view.current.session.status === 'signed_in');
    await waitFor('the movements', () => view.current.movements.isSuccess);
    await acting(() => tabA.logout());
    await waitFor('signed out by the other tab', () => view.current.session.status === 'signed_out');
    expect(view.current.movements.data).toBeUndefined();
    expect(view.queryClient.getQueryData(gatewayKeys.infinite('/v1/movements'))).toBeUndefined();
    await view.unmount();
    tabA.close();
    tabB.close();
  });
});
