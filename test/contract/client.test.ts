/**
 * The client against the Prism mock (which refuses any request that breaks the spec): every operation of
 * the spec is called through it; and end to end against the real server with the demo account.
 */

import {
  createGatewayClient,
  type GatewayClient,
  isExpiredToken,
  memoryStorage,
  SessionEndedError,
  signerFromSeed,
} from '@gateway/client';
import { type OperationId, operationMeta } from '@gateway/generated';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type RunningGateway, startGateway } from '../src/gateway.js';
import { importMovement } from '../src/movements.js';

const DEMO_SEED = 'uncle push human bus echo drastic garden joke sand warfare sentence fossil title color combine';
const DEMO_ADDRESS = '3P9KR33QyXwfTXv8kKtNGZYtgKk3RXSUk36';
const signer = signerFromSeed(DEMO_SEED);
/**
 * A fetch that tells when an event stream is open (its position is sent before the answer) and when one ends.
 */
function watchedFetch() {
  const waiters: { opened: ((request: Request) => void)[]; ended: ((request: Request) => void)[] } = {
    opened: [],
    ended: [],
  };
  const requests: Request[] = [];
  const next = (kind: 'opened' | 'ended') => new Promise<Request>((resolve) => waiters[kind].push(resolve));
  const fire = (kind: 'opened' | 'ended', request: Request) => {
    for (const resolve of waiters[kind].splice(0)) resolve(request);
  };
  const watched: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const response = await fetch(request);
    if (!new URL(request.url).pathname.endsWith('/v1/events')) return response;
    requests.push(request);
    if (!response.ok || !response.body) return response;
    fire('opened', request);
    const body = response.body.pipeThrough(new TransformStream({ flush: () => fire('ended', request) }));
    return new Response(body, { status: response.status, headers: response.headers });
  };
  /** `opened()`, `ended()`: the next stream request that opens, or ends, from now on. */
  return { fetch: watched, requests, opened: () => next('opened'), ended: () => next('ended') };
}

/** One call of every operation, through the typed client. */
const calls: Record<OperationId, (client: GatewayClient) => Promise<{ response: Response; error?: unknown }>> = {
  createToken: (c) =>
    c.login(signer, { lifetime: 600 }).then(() => ({ response: new Response(null, { status: 200 }) })),
  // As `logout()` sends it (the shared session stays signed in for the other calls).
  revokeToken: (c) =>
    c.api.POST('/v1/oauth2/revoke', {
      body: { token: 'rt_9Hc2rTQv1m3P0WkA7yZbL5xNqE8sJfUd4GgVoKiB6Cw', token_type_hint: 'refresh_token' },
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      bodySerializer: (fields) => new URLSearchParams(fields as Record<string, string>).toString(),
    }),
  listDepositCurrencies: (c) => c.api.GET('/v1/deposit/currencies', { params: { query: { limit: 10, offset: 0 } } }),
  getDepositCurrency: (c) =>
    c.api.GET('/v1/deposit/currencies/{currency}/{platform}', {
      params: { path: { currency: 'USDT', platform: 'ETH' } },
    }),
  getDepositCurrencyOnDefaultPlatform: (c) =>
    c.api.GET('/v1/deposit/currencies/{currency}', { params: { path: { currency: 'USDT' } } }),
  getDepositAddresses: (c) =>
    c.api.GET('/v1/deposit/addresses/{currency}/{platform}', {
      params: { path: { currency: 'USDT', platform: 'ETH' } },
    }),
  getDepositAddressesOnDefaultPlatform: (c) =>
    c.api.GET('/v1/deposit/addresses/{currency}', { params: { path: { currency: 'BTC' } } }),
  listWithdrawalCurrencies: (c) => c.api.GET('/v1/withdraw/currencies', { params: { query: { limit: 100 } } }),
  getWithdrawalCurrency: (c) =>
    c.api.GET('/v1/withdraw/currencies/{currency}/{platform}', {
      params: { path: { currency: 'USDT', platform: 'ETH' } },
    }),
  getWithdrawalCurrencyOnDefaultPlatform: (c) =>
    c.api.GET('/v1/withdraw/currencies/{currency}', { params: { path: { currency: 'USDT' } } }),
  getWithdrawalAddresses: (c) =>
    c.api.GET('/v1/withdraw/addresses/{currency}/{address}/{platform}', {
      params: { path: { currency: 'USDT', address: '0x3f2b1c25A5f23b193560B97988ee98cBDb480730', platform: 'ETH' } },
    }),
  getWithdrawalAddressesOnDefaultPlatform: (c) =>
    c.api.GET('/v1/withdraw/addresses/{currency}/{address}', {
      params: { path: { currency: 'USDT', address: '0x3f2b1c25A5f23b193560B97988ee98cBDb480730' } },
    }),
  listMovements: (c) => c.api.GET('/v1/movements', { params: { query: { limit: 5 } } }),
  getMovement: (c) =>
    c.api.GET('/v1/movements/{id}', { params: { path: { id: '0b7c4f52-3a1e-4c0f-9d8e-7a1b2c3d4e5f' } } }),
  listPlatforms: (c) => c.api.GET('/v1/platforms', { params: { query: { limit: 100 } } }),
  getPlatform: (c) => c.api.GET('/v1/platforms/{id}', { params: { path: { id: 'ETH' } } }),
  listTrades: (c) =>
    c.api.GET('/v1/addresses/{ledger_address}/trades/{amount_currency_id}/{price_currency_id}', {
      params: {
        path: { ledger_address: DEMO_ADDRESS, amount_currency_id: 'WAVES', price_currency_id: 'USDT' },
        query: { timestamp__gte: '2021-08-01T00:00:00.000Z', sort: 'asc', limit: 50 },
      },
    }),
  getStakingYield: (c) => c.api.GET('/v1/apy/staking/{currency_id}', { params: { path: { currency_id: 'WAVES' } } }),
  getLiveness: (c) => c.api.GET('/health/live'),
  getReadiness: (c) => c.api.GET('/health/ready'),
  getServingState: (c) => c.api.GET('/health/serving'),
  getMetrics: (c) => c.api.GET('/metrics', { parseAs: 'text' }),
  // The mock answers the stream's documented example and ends it.
  listEvents: (c) => c.api.GET('/v1/events', { parseAs: 'text' }),
};

describe('the client against the mock', () => {
  let client: GatewayClient;
  beforeAll(async () => {
    client = createGatewayClient({ baseUrl: inject('mockUrl'), chainId: 'W', clientId: 'waves.exchange' });
    await client.login(signer, { lifetime: 600 });
  });

  it.each(Object.keys(operationMeta) as OperationId[])(
    '%s: the mock accepts the request the client sends',
    async (id) => {
      const { response, error } = await calls[id](client);
      expect(error).toBeUndefined();
      expect(response.status).toBe(200);
    },
  );

  it('pages through a list and ends, though the mock answers every page with its example', async () => {
    const ids = [];
    for await (const movement of client.movements({ pageSize: 3 })) ids.push(movement.id);
    const examples = [];
    for await (const trade of client.trades({ address: DEMO_ADDRESS, amountCurrency: 'WAVES', priceCurrency: 'USDT' }))
      examples.push(trade.id);
    const first = await client.api.GET('/v1/movements', { params: { query: { limit: 3 } } });
    expect(first.data?.page_info.has_next_page).toBe(true);
    expect(ids).toEqual(first.data?.items.map((m) => m.id));
    expect(examples.length).toBeGreaterThan(0);
  });
});

describe('the client against the real server, end to end', () => {
  let gateway: RunningGateway;
  beforeAll(async () => {
    // A reuse grace of 1 s (30 by default), so that a replay past it is a second's wait.
    gateway = await startGateway({ REFRESH_REUSE_GRACE_SECONDS: '1' });
  }, 60_000);
  afterAll(() => gateway?.stop());
  /** A client of the real server, as the deployed web app configures it, with `options` on top. */
  const realClient = (options: Partial<Parameters<typeof createGatewayClient>[0]> = {}) =>
    createGatewayClient({ baseUrl: gateway.url, chainId: 'W', clientId: 'waves.exchange', ...options });

  it('signs in with the demo seed, pages through movements and trades', async () => {
    const client = realClient();
    await client.login(signer, { lifetime: 3600 });
    const movements = [];
    for await (const movement of client.movements({ pageSize: 7 })) movements.push(movement);
    expect(movements.length).toBe(50);
    const created = movements.map((m) => m.created_at);
    expect(created).toEqual([...created].sort().reverse());
    const trades = [];
    for await (const trade of client.trades({
      address: DEMO_ADDRESS,
      amountCurrency: 'WAVES',
      priceCurrency: 'USDT',
      sort: 'asc',
      pageSize: 37,
    })) {
      trades.push(trade);
    }
    expect(trades.length).toBe(320);
    expect(new Set(trades.map((t) => t.id)).size).toBe(320);
    const platforms = [];
    for await (const p of client.platforms({ pageSize: 1 })) platforms.push(p.id);
    expect(platforms).toEqual(['BSC', 'BTC', 'ETH', 'WAVES']);
    const currencies = [];
    for await (const c of client.withdrawalCurrencies({ pageSize: 2 })) currencies.push(`${c.id}/${c.platform_id}`);
    expect(currencies).toHaveLength(9);
  });

  it('logout signs the device out: its access token and its refresh token are refused', async () => {
    const storage = memoryStorage();
    const client = realClient({ storage });
    // An account of its own: signing out ends the account's passwords expiring up to this sign-in's.
    const tokens = await client.login(signerFromSeed(DEMO_SEED, { nonce: 11 }), { lifetime: 3600 });
    expect((await client.api.GET('/v1/movements', { params: { query: { limit: 1 } } })).response.status).toBe(200);
    await client.logout();
    expect(await client.session()).toBeNull();
    // Someone who copied the tokens before the logout gets nothing with them.
    const copy = realClient({
      storage: memoryStorage(tokens),
    });
    const error = await copy.api.GET('/v1/movements', { params: { query: { limit: 1 } } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionEndedError);
    expect(error).toMatchObject({ code: 11308 });
    const direct = await fetch(`${gateway.url}/v1/movements`, {
      headers: { authorization: `Bearer ${tokens.accessToken}` },
    });
    expect(direct.status).toBe(401);
    expect(((await direct.json()) as { errors: { code: number }[] }).errors[0]?.code).toBe(10000);
  });

  it('refreshes before expiry; a spent refresh token works within the grace, and past it ends the sign-in with a clear error', async () => {
    let clock = Date.now();
    const now = () => clock;
    const client = realClient({ storage: memoryStorage(), now });
    // An account of its own: the reuse revokes the sign-in, and with it the account's passwords up to its expiry.
    const first = await client.login(signerFromSeed(DEMO_SEED, { nonce: 12 }), { lifetime: 120 });
    // Copies of the session (other tabs holding the same tokens, without a storage shared with this one).
    const copy = realClient({ storage: memoryStorage({ ...first }), now });
    const late = realClient({ storage: memoryStorage({ ...first }), now });
    clock += 100_000; // within the refresh margin of the 120 s token
    const { response } = await client.api.GET('/v1/movements', { params: { query: { limit: 1 } } });
    expect(response.status).toBe(200);
    const second = await client.session();
    expect(second?.refreshToken).not.toBe(first.refreshToken);
    // The copy presents the spent refresh token at once, within the grace: a pair of the same sign-in.
    const within = await copy.api.GET('/v1/movements', { params: { query: { limit: 1 } } });
    expect(within.response.status).toBe(200);
    expect((await copy.session())?.refreshToken).not.toBe(second?.refreshToken);
    // Presented past the grace (the server's clock: 1 s, counted in whole seconds), it is a theft: the sign-in ends.
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const error = await late.api.GET('/v1/movements').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionEndedError);
    expect((error as SessionEndedError).code).toBe(11308);
    expect(await late.session()).toBeNull();
    // The first session's and the copy's next refreshes are refused too.
    clock += 200_000;
    for (const ended of [client, copy]) {
      const after = await ended.api.GET('/v1/movements').catch((e: unknown) => e);
      expect(after).toBeInstanceOf(SessionEndedError);
      expect(await ended.session()).toBeNull();
    }
  });

  it('tells an invalid token from other failures', async () => {
    const client = realClient({
      storage: memoryStorage({
        accessToken: 'a.b.c',
        refreshToken: 'rt_x',
        expiresAt: Math.floor(Date.now() / 1000) + 600,
      }),
    });
    const { error } = await client.api.GET('/v1/platforms/{id}', { params: { path: { id: 'SOL' } } });
    expect(isExpiredToken(error)).toBe(false);
    expect(error?.errors[0]?.code).toBe(10402);
  });

  it('events(): a movement imported by another process arrives on the stream', async () => {
    const watch = watchedFetch();
    const client = realClient({
      fetch: watch.fetch,
    });
    await client.login(signer, { lifetime: 3600 });
    const controller = new AbortController();
    const iterator = client.events({ signal: controller.signal })[Symbol.asyncIterator]();
    const opened = watch.opened();
    const first = iterator.next();
    await opened;
    const id = await importMovement(gateway.dataDir);
    const { value } = await first;
    expect(value).toMatchObject({ type: 'movement', movement: { id, status: 'in_progress', currency_id: 'BTC' } });
    expect(value?.id).toMatch(/^[1-9][0-9]*$/);
    controller.abort();
    expect((await iterator.next()).done).toBe(true);
  }, 30_000);

  it('events(): the stream ends when a short-lived token expires; the client refreshes and resumes', async () => {
    const watch = watchedFetch();
    const client = realClient({
      fetch: watch.fetch,
      refreshMarginSeconds: 0,
    });
    const first = await client.login(signer, { lifetime: 3 });
    const iterator = client.events()[Symbol.asyncIterator]();
    const opened = watch.opened();
    const next = iterator.next();
    await opened;
    const before = await importMovement(gateway.dataDir);
    const { value: one } = await next;
    expect(one).toMatchObject({ type: 'movement', movement: { id: before } });
    // The server ends the stream at the token's expiry; while the client waits to reconnect, another movement.
    const ended = watch.ended();
    const reopened = watch.opened();
    const pending = iterator.next();
    await ended;
    const started = Date.now();
    const during = await importMovement(gateway.dataDir, 'confirmed');
    const { value: two } = await pending;
    expect(two).toMatchObject({ type: 'movement', movement: { id: during, status: 'confirmed' } });
    // The reconnection after the stream that delivered the first event ended (on a slow machine the first
    // stream may have ended before the import of `before` was done: the event then came on a second stream).
    const again = await reopened;
    expect(Date.now() - started).toBeLessThan(10_000);
    // It reconnected with the id of the last event it had, and with a refreshed token: at once, or (a busy
    // machine, the stream ended while the client's clock still read the token valid) after one more stream
    // on the old token, which the server ends at once; either way within the bound.
    expect(new URL(again.url).searchParams.get('last_event_id')).toBe(one?.id);
    const old = `Bearer ${first.accessToken}`;
    const from = watch.requests.indexOf(again);
    let refreshed = watch.requests.slice(from).find((r) => r.headers.get('authorization') !== old);
    while (!refreshed && Date.now() - started < 10_000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      refreshed = watch.requests.slice(from).find((r) => r.headers.get('authorization') !== old);
    }
    const second = await client.session();
    expect(second?.accessToken).not.toBe(first.accessToken);
    expect(refreshed?.headers.get('authorization')).toMatch(/^Bearer ey/);
    expect([one?.id, two?.id]).toContain(new URL(refreshed?.url ?? 'http://x/').searchParams.get('last_event_id'));
    await iterator.return?.();
  }, 30_000);
});
