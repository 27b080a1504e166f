/**
 * Tabs sharing one storage (a fake `localStorage` with `storage` events between fake windows), each with its
 * own client, against a real HTTP server that applies the gateway's token rules (a refresh token presented
 * twice revokes the sign-in).
 */
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { signerFromSeed } from '../src/auth/ledger.js';
import { SessionEndedError } from '../src/errors.js';
import { createGatewayClient, type GatewayClientOptions } from '../src/gateway.js';
import { type LockManagerLike, realmLocks } from '../src/locks.js';
import type { SessionChange } from '../src/session.js';
import {
  type KeyValueStorage,
  type StorageEventLike,
  type StorageEventTarget,
  type WebStorageOptions,
  webStorage,
} from '../src/storage.js';
import { errorBody, type HttpGateway, httpServer, json } from './fake-server.js';
import { tokenRules } from './token-rules.js';

const signer = signerFromSeed(
  'uncle push human bus echo drastic garden joke sand warfare sentence fossil title color combine',
);
const movementsPage = { type: 'list', page_info: { has_next_page: false, last_cursor: null }, items: [] };

/** One origin's localStorage, seen by several tabs: a write in one fires `storage` in the others (a task later). */
function browser() {
  const items = new Map<string, string>();
  const tabs: { storage: KeyValueStorage; window: StorageEventTarget; fire: (e: StorageEventLike) => void }[] = [];
  const write = (from: KeyValueStorage, key: string, value: string | null) => {
    if (value === null) items.delete(key);
    else items.set(key, value);
    for (const tab of tabs) {
      if (tab.storage !== from) setTimeout(() => tab.fire({ key, newValue: value, storageArea: tab.storage }), 0);
    }
  };
  return {
    tab() {
      const listeners = new Set<(event: StorageEventLike) => void>();
      const storage: KeyValueStorage = {
        getItem: (key) => items.get(key) ?? null,
        setItem: (key, value) => write(storage, key, value),
        removeItem: (key) => write(storage, key, null),
      };
      const window: StorageEventTarget = {
        addEventListener: (_, listener) => listeners.add(listener),
        removeEventListener: (_, listener) => listeners.delete(listener),
      };
      const fire = (event: StorageEventLike) => {
        for (const listener of listeners) listener(event);
      };
      tabs.push({ storage, window, fire });
      return { storage, window };
    },
  };
}

let clock = 1_800_000_000_000;
const servers: HttpGateway[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A gateway with the token rules, whose movements want a live access token. */
async function gateway() {
  const rules = tokenRules({ now: () => clock });
  const server = await httpServer(
    (r) =>
      rules.answer(r) ??
      (rules.authorized(r) ? json(200, movementsPage, rules.headers()) : json(401, errorBody(10000), rules.headers())),
  );
  servers.push(server);
  return { rules, server };
}

/** A tab's client: its own window, the origin's shared localStorage. */
function tabClient(
  server: HttpGateway,
  tab: ReturnType<ReturnType<typeof browser>['tab']>,
  options: Partial<GatewayClientOptions> & { web?: WebStorageOptions } = {},
) {
  const { web, ...rest } = options;
  const client = createGatewayClient({
    baseUrl: server.url,
    chainId: 'W',
    clientId: 'waves.exchange',
    now: () => clock,
    storage: webStorage(tab.storage, 'gateway.session', { events: tab.window, broadcast: false, ...web }),
    ...rest,
  });
  const changes: SessionChange[] = [];
  client.onSessionChange((change) => changes.push(change));
  return { client, changes };
}

/** Resolves at the listener's next call. */
const nextChange = (client: ReturnType<typeof tabClient>['client']) =>
  new Promise<SessionChange>((resolve) => {
    const stop = client.onSessionChange((change) => {
      stop();
      resolve(change);
    });
  });

/** Web Locks as `navigator.locks` gives them, counting the holders of each name at once. */
function countingLocks(): LockManagerLike & { names: string[]; most: number } {
  let holding = 0;
  const locks = {
    names: [] as string[],
    most: 0,
    request<T>(name: string, callback: () => Promise<T>): Promise<T> {
      locks.names.push(name);
      return realmLocks.request(name, async () => {
        locks.most = Math.max(locks.most, ++holding);
        try {
          return await callback();
        } finally {
          holding--;
        }
      });
    },
  };
  return locks;
}

describe('tabs sharing a storage', () => {
  it('refresh one at a time: two tabs at expiry spend the refresh token once, and both stay signed in', async () => {
    const { rules, server } = await gateway();
    const origin = browser();
    const locks = countingLocks();
    // No storage events: the lock and the storage re-read under it alone must do it.
    const quiet = { web: { events: null }, locks };
    const a = tabClient(server, origin.tab(), quiet);
    await a.client.login(signer, { lifetime: 3600 });
    const b = tabClient(server, origin.tab(), quiet);
    clock += 3570_000; // within the refresh margin
    const answers = await Promise.all([a.client.api.GET('/v1/movements'), b.client.api.GET('/v1/movements')]);
    expect(answers.map((answer) => answer.response.status)).toEqual([200, 200]);
    expect(rules.counts).toMatchObject({ refresh: 1, reuse: 0 });
    expect(locks.names).toEqual(['gateway.session:gateway.session', 'gateway.session:gateway.session']);
    expect(locks.most).toBe(1);
    const [sa, sb] = await Promise.all([a.client.session(), b.client.session()]);
    expect(sa?.refreshToken).toBe('refresh-2');
    expect(sb).toEqual(sa);
    // One tab refreshed; the other adopted the stored pair.
    expect([...a.changes, ...b.changes].map((c) => `${c.type}/${c.reason}`).sort()).toEqual([
      'refreshed/refresh',
      'refreshed/storage',
      'signed_in/login',
      'signed_in/restored',
    ]);
  });

  it('without the lock the same two tabs present one refresh token twice and the server signs both out', async () => {
    const { rules, server } = await gateway();
    const origin = browser();
    const none: LockManagerLike = { request: (_, callback) => callback() };
    const quiet = { web: { events: null }, locks: none };
    const a = tabClient(server, origin.tab(), quiet);
    await a.client.login(signer, { lifetime: 3600 });
    const b = tabClient(server, origin.tab(), quiet);
    clock += 3570_000;
    const answers = await Promise.allSettled([a.client.api.GET('/v1/movements'), b.client.api.GET('/v1/movements')]);
    expect(answers.some((answer) => answer.status === 'rejected')).toBe(true);
    expect(rules.counts.reuse).toBeGreaterThanOrEqual(1);
    // The sign-in is revoked: neither tab gets anything any more.
    for (const tab of [a, b]) {
      const outcome = await tab.client.api.GET('/v1/movements').then(
        (answer) => answer.response.status,
        (error: unknown) => error,
      );
      expect(outcome === 401 || outcome instanceof SessionEndedError).toBe(true);
    }
  });

  it('a tab that missed the other tab’s refresh adopts the stored pair instead of presenting its spent token', async () => {
    const { rules, server } = await gateway();
    const origin = browser();
    const quiet = { web: { events: null } };
    const a = tabClient(server, origin.tab(), quiet);
    await a.client.login(signer, { lifetime: 3600 });
    const b = tabClient(server, origin.tab(), quiet);
    expect((await b.client.session())?.refreshToken).toBe('refresh-1');
    clock += 3570_000;
    expect((await a.client.api.GET('/v1/movements')).response.status).toBe(200);
    // B still holds refresh-1 in memory, spent by A: it must not present it.
    expect((await b.client.api.GET('/v1/movements')).response.status).toBe(200);
    expect(rules.counts).toMatchObject({ refresh: 1, reuse: 0 });
    expect((await b.client.session())?.refreshToken).toBe('refresh-2');
    expect(b.changes.at(-1)).toMatchObject({ type: 'refreshed', reason: 'storage' });
  });

  it('with storage events, a refresh, a sign-out and a sign-in in one tab reach the other at once', async () => {
    const { rules, server } = await gateway();
    const origin = browser();
    const a = tabClient(server, origin.tab());
    const b = tabClient(server, origin.tab());
    expect(b.client.sessionStore.getSnapshot()).toEqual({ status: 'signed_out', tokens: null });

    let heard = nextChange(b.client);
    await a.client.login(signer, { lifetime: 3600 });
    expect(await heard).toMatchObject({ type: 'signed_in', reason: 'storage', tokens: { refreshToken: 'refresh-1' } });

    heard = nextChange(b.client);
    clock += 3570_000;
    await a.client.api.GET('/v1/movements');
    expect(await heard).toMatchObject({ type: 'refreshed', reason: 'storage', tokens: { refreshToken: 'refresh-2' } });
    expect((await b.client.api.GET('/v1/movements')).response.status).toBe(200);
    expect(rules.counts).toMatchObject({ refresh: 1, reuse: 0 });

    heard = nextChange(b.client);
    await a.client.logout();
    expect(await heard).toEqual({ type: 'signed_out', reason: 'storage', tokens: null });
    expect(b.client.sessionStore.getSnapshot().status).toBe('signed_out');
    const after = await b.client.api.GET('/v1/movements');
    expect(after.response.status).toBe(401);
    expect(server.requests.at(-1)?.headers.get('authorization')).toBeNull();
    b.client.close();
    await a.client.login(signer, { lifetime: 3600 });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(b.client.sessionStore.getSnapshot().status).toBe('signed_out');
  });

  it('a tab whose storage says signed out ends its session at its next refresh (no storage event heard)', async () => {
    const { rules, server } = await gateway();
    const origin = browser();
    const quiet = { web: { events: null } };
    const a = tabClient(server, origin.tab(), quiet);
    await a.client.login(signer, { lifetime: 3600 });
    const b = tabClient(server, origin.tab(), quiet);
    await b.client.session();
    await a.client.logout();
    clock += 3570_000;
    const error = await b.client.api.GET('/v1/movements').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionEndedError);
    expect(rules.counts.refresh).toBe(0);
    expect(b.changes.at(-1)).toEqual({ type: 'signed_out', reason: 'storage', tokens: null });
  });

  it('clients of one page hear each other on a BroadcastChannel (no storage event within a page)', async () => {
    const { server } = await gateway();
    const origin = browser();
    const page = origin.tab();
    const a = tabClient(server, page, { web: { events: null, broadcast: true } });
    const b = tabClient(server, page, { web: { events: null, broadcast: true } });
    await b.client.session();
    const heard = nextChange(b.client);
    await a.client.login(signer, { lifetime: 3600 });
    expect(await heard).toMatchObject({ type: 'signed_in', reason: 'storage' });
    a.client.close();
    b.client.close();
  });
});

describe('the session store', () => {
  it('gives one snapshot per state, for useSyncExternalStore, and tells its subscribers of changes', async () => {
    const { server } = await gateway();
    const { client } = tabClient(server, browser().tab());
    const first = client.sessionStore.getSnapshot();
    // webStorage answers at once: no loading state is seen.
    expect(first).toEqual({ status: 'signed_out', tokens: null });
    expect(client.sessionStore.getSnapshot()).toBe(first);
    let told = 0;
    const stop = client.sessionStore.subscribe(() => told++);
    await client.login(signer, { lifetime: 3600 });
    const second = client.sessionStore.getSnapshot();
    expect(second).toMatchObject({ status: 'signed_in', tokens: { refreshToken: 'refresh-1' } });
    expect(client.sessionStore.getSnapshot()).toBe(second);
    await client.logout();
    stop();
    await client.login(signer, { lifetime: 3600 });
    expect(told).toBe(2);
  });

  it('is loading until an asynchronous storage answers', async () => {
    let answer: (value: null) => void = () => undefined;
    const client = createGatewayClient({
      baseUrl: 'http://127.0.0.1:1',
      chainId: 'W',
      clientId: 'waves.exchange',
      storage: { load: () => new Promise((resolve) => (answer = resolve)), save: () => undefined },
    });
    expect(client.sessionStore.getSnapshot().status).toBe('loading');
    answer(null);
    await client.session();
    expect(client.sessionStore.getSnapshot().status).toBe('signed_out');
  });

  it('types: the browser’s window and navigator.locks fit', () => {
    expectTypeOf<Window>().toExtend<StorageEventTarget>();
    expectTypeOf<LockManager>().toExtend<LockManagerLike>();
  });
});
