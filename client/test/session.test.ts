import { describe, expect, expectTypeOf, it } from 'vitest';
import { signerFromSeed } from '../src/auth/ledger.js';
import { GatewayError, isExpiredToken, SessionEndedError } from '../src/errors.js';
import { createGatewayClient, type GatewayClientOptions } from '../src/gateway.js';
import { memoryStorage, type SessionTokens, webStorage } from '../src/session.js';
import { errorBody, fakeFetch, json, type Recorded } from './fake-server.js';

const signer = signerFromSeed(
  'uncle push human bus echo drastic garden joke sand warfare sentence fossil title color combine',
);
const NOW = 1_800_000_000_000;
const pair = (n: number, expiresIn = NOW / 1000 + 3600) => ({
  access_token: `access-${n}`,
  token_type: 'bearer',
  expires_in: expiresIn,
  refresh_token: `refresh-${n}`,
});
const movementsPage = { type: 'list', page_info: { has_next_page: false, last_cursor: null }, items: [] };

/** A gateway whose token endpoint issues access-1, access-2, … and whose movements want the newest token. */
function gateway(
  options: { refuseRefresh?: boolean; failRefreshes?: number; onMovements?: (r: Recorded) => Response } = {},
) {
  let issued = 0;
  let failures = options.failRefreshes ?? 0;
  const server = fakeFetch((r) => {
    if (r.url.pathname === '/v1/oauth2/token') {
      const fields = new URLSearchParams(r.body);
      if (fields.get('grant_type') === 'refresh_token' && options.refuseRefresh) return json(400, errorBody(11308));
      if (fields.get('grant_type') === 'refresh_token' && failures > 0) {
        failures--;
        return json(503, errorBody(11200));
      }
      issued++;
      return json(200, pair(issued));
    }
    if (r.url.pathname === '/v1/movements') {
      if (options.onMovements) return options.onMovements(r);
      return r.headers.get('authorization') === `Bearer access-${issued}`
        ? json(200, movementsPage)
        : json(401, errorBody(10000));
    }
    return json(200, { type: 'list', page_info: { has_next_page: false, last_cursor: null }, items: [] });
  });
  return server;
}

/** A client of the fake gateway; `fetch` is the fake's. */
const testClient = (options: Omit<GatewayClientOptions, 'baseUrl' | 'chainId' | 'clientId'>) =>
  createGatewayClient({ baseUrl: 'https://gw.test', chainId: 'W', clientId: 'waves.exchange', ...options });

const tokenCalls = (requests: Recorded[]) => requests.filter((r) => r.url.pathname === '/v1/oauth2/token');

describe('signing in', () => {
  it('posts the documented form body with a password signed for now + lifetime', async () => {
    const { fetch, requests } = gateway();
    const client = testClient({ fetch, now: () => NOW });
    const tokens = await client.login(signer, { lifetime: 3600 });
    expect(tokens).toEqual({ accessToken: 'access-1', refreshToken: 'refresh-1', expiresAt: NOW / 1000 + 3600 });
    const [call] = tokenCalls(requests);
    expect(call?.method).toBe('POST');
    expect(call?.headers.get('content-type')).toBe('application/x-www-form-urlencoded');
    const form = Object.fromEntries(new URLSearchParams(call?.body));
    expect(form).toMatchObject({
      grant_type: 'password',
      scope: 'general',
      username: signer.publicKey,
      client_id: 'waves.exchange',
    });
    expect(form.password).toMatch(new RegExp(`^${NOW / 1000 + 3600}:[1-9A-HJ-NP-Za-km-z]{86,88}$`));
  });

  it('refuses a lifetime over one week, and surfaces a refusal as a GatewayError with its code', async () => {
    const { fetch } = fakeFetch(() => json(400, errorBody(11307, 'Invalid signature')));
    const client = testClient({ fetch });
    await expect(client.login(signer, { lifetime: 604_801 })).rejects.toThrow(RangeError);
    const error = await client.login(signer).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 400, code: 11307 });
  });
});

describe('signing in again after signing out', () => {
  /** A gateway that, as the server, refuses a password signed for a signed-out sign-in's expiry or before (11309). */
  function signingOutGateway() {
    let signedOutThrough = 0;
    let current = 0;
    return fakeFetch((r) => {
      if (r.url.pathname === '/v1/oauth2/revoke') {
        signedOutThrough = Math.max(signedOutThrough, current);
        return json(200, {});
      }
      const expiry = Number(new URLSearchParams(r.body).get('password')?.split(':')[0]);
      if (expiry <= signedOutThrough) return json(400, errorBody(11309));
      current = expiry;
      return json(200, pair(1, expiry));
    });
  }

  it('at once, for the same lifetime: the password is signed for a second past the sign-in signed out', async () => {
    const { fetch } = signingOutGateway();
    const client = testClient({ fetch, now: () => NOW });
    const first = await client.login(signer);
    expect(first.expiresAt).toBe(NOW / 1000 + 604_800);
    await client.logout();
    const again = await client.login(signer);
    expect(again.expiresAt).toBe(NOW / 1000 + 604_801);
    await client.logout();
    expect((await client.login(signer)).expiresAt).toBe(NOW / 1000 + 604_802);
  });

  it('with a much shorter lifetime, the password is not stretched: the refusal says why', async () => {
    const { fetch } = signingOutGateway();
    const client = testClient({ fetch, now: () => NOW });
    await client.login(signer);
    await client.logout();
    await expect(client.login(signer, { lifetime: 60 })).rejects.toMatchObject({ code: 11309 });
    // Another client (another process) knows nothing of the sign-out, and signs what it is asked.
    const other = testClient({ fetch, now: () => NOW });
    await expect(other.login(signer)).rejects.toMatchObject({ code: 11309 });
  });
});

describe('the session', () => {
  it('attaches the token to protected operations only', async () => {
    const { fetch, requests } = gateway();
    const client = testClient({ fetch, now: () => NOW });
    await client.login(signer);
    await client.api.GET('/v1/movements');
    await client.api.GET('/v1/platforms');
    expect(requests.find((r) => r.url.pathname === '/v1/movements')?.headers.get('authorization')).toBe(
      'Bearer access-1',
    );
    expect(requests.find((r) => r.url.pathname === '/v1/platforms')?.headers.get('authorization')).toBeNull();
  });

  it('refreshes before the absolute expiry, with the refresh grant', async () => {
    let clock = NOW;
    const { fetch, requests } = gateway();
    const client = testClient({ fetch, now: () => clock });
    await client.login(signer);
    clock = NOW + (3600 - 30) * 1000; // within the 60 s margin
    const { data } = await client.api.GET('/v1/movements');
    expect(data).toEqual(movementsPage);
    const refresh = tokenCalls(requests)[1];
    expect(Object.fromEntries(new URLSearchParams(refresh?.body))).toEqual({
      grant_type: 'refresh_token',
      scope: 'general',
      client_id: 'waves.exchange',
      refresh_token: 'refresh-1',
    });
    expect((await client.session())?.accessToken).toBe('access-2');
  });

  it('refreshes once on a 401 with code 10000 and retries; a second 401 is returned, not looped', async () => {
    let refused = 0;
    const { fetch, requests } = gateway({
      // Refuses every token: the client must refresh once, retry once, and give up.
      onMovements: () => {
        refused++;
        return json(401, errorBody(10000));
      },
    });
    const client = testClient({ fetch, now: () => NOW });
    await client.login(signer);
    const { error, response } = await client.api.GET('/v1/movements');
    expect(response.status).toBe(401);
    expect(isExpiredToken(error)).toBe(true);
    expect(tokenCalls(requests)).toHaveLength(2);
    expect(requests.filter((r) => r.url.pathname === '/v1/movements')).toHaveLength(2);
    expect(refused).toBe(2);
  });

  it('shares one refresh among concurrent requests', async () => {
    const { fetch, requests } = gateway();
    const client = testClient({ fetch, now: () => NOW });
    await client.login(signer);
    await client.login(signer); // the server now wants access-2; the session holds access-2 too
    const storage = memoryStorage({ accessToken: 'access-0', refreshToken: 'refresh-2', expiresAt: NOW / 1000 + 3600 });
    const stale = testClient({ fetch, now: () => NOW, storage });
    const results = await Promise.all(Array.from({ length: 8 }, () => stale.api.GET('/v1/movements')));
    expect(results.every((r) => r.response.status === 200)).toBe(true);
    expect(tokenCalls(requests)).toHaveLength(3);
  });

  it('persists and restores tokens through the storage interface', async () => {
    const saved = new Map<string, string>();
    const web = {
      getItem: (k: string) => saved.get(k) ?? null,
      setItem: (k: string, v: string) => void saved.set(k, v),
      removeItem: (k: string) => void saved.delete(k),
    };
    const { fetch } = gateway();
    const first = testClient({ fetch, now: () => NOW, storage: webStorage(web) });
    await first.login(signer);
    const second = testClient({ fetch, now: () => NOW, storage: webStorage(web) });
    expect(await second.session()).toEqual<SessionTokens>({
      accessToken: 'access-1',
      refreshToken: 'refresh-1',
      expiresAt: NOW / 1000 + 3600,
    });
    expect((await second.api.GET('/v1/movements')).response.status).toBe(200);
    await second.logout();
    expect(saved.size).toBe(0);
  });

  it('logout revokes the sign-in on the server (RFC 7009 form), then forgets the tokens', async () => {
    const { fetch, requests } = gateway();
    const client = testClient({ fetch, now: () => NOW });
    await client.login(signer);
    await client.logout();
    const revocations = requests.filter((r) => r.url.pathname === '/v1/oauth2/revoke');
    expect(revocations).toHaveLength(1);
    expect(revocations[0]?.method).toBe('POST');
    expect(revocations[0]?.headers.get('content-type')).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(revocations[0]?.body))).toEqual({
      token: 'refresh-1',
      token_type_hint: 'refresh_token',
      client_id: 'waves.exchange',
    });
    expect(await client.session()).toBeNull();
    // Signed out already: nothing to revoke.
    await client.logout();
    expect(requests.filter((r) => r.url.pathname === '/v1/oauth2/revoke')).toHaveLength(1);
  });

  it('logout forgets the tokens even when the server cannot revoke, and says so', async () => {
    let issued = 0;
    const { fetch } = fakeFetch((r) =>
      r.url.pathname === '/v1/oauth2/token' ? json(200, pair(++issued)) : json(503, errorBody(11200)),
    );
    const client = testClient({ fetch, now: () => NOW, retry: { baseDelayMs: 1 } });
    await client.login(signer);
    const error = await client.logout().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 503, code: 11200 });
    expect(await client.session()).toBeNull();
  });

  it('a refused refresh ends the session with a clear error', async () => {
    let clock = NOW;
    const { fetch } = gateway({ refuseRefresh: true });
    const client = testClient({ fetch, now: () => clock });
    await client.login(signer);
    clock = NOW + 3600 * 1000;
    const error = await client.api.GET('/v1/movements').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionEndedError);
    expect(error).toMatchObject({ code: 11308 });
    expect(await client.session()).toBeNull();
  });
});

describe('a refresh that fails on the server', () => {
  it('keeps the session (the server leaves the refresh token unspent) and the next call refreshes', async () => {
    let clock = NOW;
    const { fetch, requests } = gateway({ failRefreshes: 1 });
    const client = testClient({ fetch, now: () => clock, retry: false });
    await client.login(signer);
    clock = NOW + 3600 * 1000;
    const error = await client.api.GET('/v1/movements').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).not.toBeInstanceOf(SessionEndedError);
    expect(error).toMatchObject({ status: 503 });
    expect((await client.session())?.refreshToken).toBe('refresh-1');
    const { response } = await client.api.GET('/v1/movements');
    expect(response.status).toBe(200);
    const refreshes = tokenCalls(requests).slice(1);
    expect(refreshes.map((r) => new URLSearchParams(r.body).get('refresh_token'))).toEqual(['refresh-1', 'refresh-1']);
    expect((await client.session())?.accessToken).toBe('access-2');
  });

  it('is retried by default: a 503 to the refresh grant leaves the refresh token unspent', async () => {
    let clock = NOW;
    const { fetch, requests } = gateway({ failRefreshes: 1 });
    const client = testClient({ fetch, now: () => clock, retry: { baseDelayMs: 1 } });
    await client.login(signer);
    clock = NOW + 3600 * 1000;
    expect((await client.api.GET('/v1/movements')).response.status).toBe(200);
    const refreshes = tokenCalls(requests).slice(1);
    expect(refreshes.map((r) => new URLSearchParams(r.body).get('refresh_token'))).toEqual(['refresh-1', 'refresh-1']);
  });
});

describe('retries of idempotent reads', () => {
  const flaky = (failures: number, status: number) => {
    let calls = 0;
    return fakeFetch(() =>
      ++calls <= failures
        ? json(status, errorBody(status === 429 ? 11100 : 11200), { 'retry-after': '0' })
        : json(200, { type: 'apy', apy: 6.22 }),
    );
  };

  it('are on by default, off with retry: false', async () => {
    const on = flaky(1, 503);
    const { data } = await testClient({ fetch: on.fetch }).api.GET('/v1/apy/staking/{currency_id}', {
      params: { path: { currency_id: 'WAVES' } },
    });
    expect([data, on.requests.length]).toEqual([{ type: 'apy', apy: 6.22 }, 2]);
    const { fetch, requests } = flaky(1, 503);
    const client = testClient({ fetch, retry: false });
    const { response } = await client.api.GET('/v1/apy/staking/{currency_id}', {
      params: { path: { currency_id: 'WAVES' } },
    });
    expect([response.status, requests.length]).toEqual([503, 1]);
  });

  it('back off on 429 and 503 when enabled, up to the number of retries', async () => {
    const { fetch, requests } = flaky(2, 429);
    const client = testClient({ fetch, retry: { retries: 3, baseDelayMs: 1 } });
    const { data } = await client.api.GET('/v1/apy/staking/{currency_id}', {
      params: { path: { currency_id: 'WAVES' } },
    });
    expect(data).toEqual({ type: 'apy', apy: 6.22 });
    expect(requests).toHaveLength(3);
    const never = flaky(10, 503);
    const giving = testClient({ fetch: never.fetch, retry: { retries: 2, baseDelayMs: 1 } });
    const { response } = await giving.api.GET('/v1/apy/staking/{currency_id}', {
      params: { path: { currency_id: 'WAVES' } },
    });
    expect([response.status, never.requests.length]).toEqual([503, 3]);
  });
});

describe('iterators', () => {
  it('follow last_cursor over cursor lists and offset while has_next_page over currency lists', async () => {
    const platforms = ['A', 'B', 'C', 'D', 'E'];
    const currencies = ['c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7'];
    const { fetch, requests } = fakeFetch((r) => {
      const limit = Number(r.url.searchParams.get('limit'));
      if (r.url.pathname === '/v1/platforms') {
        const start = r.url.searchParams.has('after')
          ? platforms.indexOf(r.url.searchParams.get('after') ?? '') + 1
          : 0;
        const items = platforms.slice(start, start + limit);
        const more = start + limit < platforms.length;
        return json(200, {
          type: 'list',
          page_info: { has_next_page: more, last_cursor: more ? items.at(-1) : null },
          items: items.map((id) => ({ id })),
        });
      }
      const offset = Number(r.url.searchParams.get('offset'));
      return json(200, {
        type: 'list',
        page_info: { has_next_page: offset + limit < currencies.length },
        items: currencies.slice(offset, offset + limit).map((id) => ({ id })),
      });
    });
    const client = testClient({ fetch });
    const seen: string[] = [];
    for await (const platform of client.platforms({ pageSize: 2 })) seen.push(platform.id);
    expect(seen).toEqual(platforms);
    const ids: string[] = [];
    for await (const currency of client.depositCurrencies({ pageSize: 3 })) ids.push(currency.id);
    expect(ids).toEqual(currencies);
    expect(
      requests.filter((r) => r.url.pathname === '/v1/deposit/currencies').map((r) => r.url.searchParams.get('offset')),
    ).toEqual(['0', '3', '6']);
  });

  it('throw a GatewayError with the code when a page fails', async () => {
    const { fetch } = fakeFetch(() => json(400, errorBody(10206, 'invalid cursor')));
    const client = testClient({ fetch });
    const iterate = async () => {
      for await (const _ of client.trades({
        address: '3P9KR33QyXwfTXv8kKtNGZYtgKk3RXSUk36',
        amountCurrency: 'WAVES',
        priceCurrency: 'USDT',
      })) {
      }
    };
    await expect(iterate()).rejects.toMatchObject({ name: 'GatewayError', status: 400, code: 10206 });
  });
});

describe('types', () => {
  it('are the spec’s, for every operation', async () => {
    const { fetch } = fakeFetch(() => json(200, movementsPage));
    const client = testClient({ fetch });
    const platform = await client.api.GET('/v1/platforms/{id}', { params: { path: { id: 'ETH' } } });
    expectTypeOf(platform.data).toEqualTypeOf<
      { type: 'platform'; id: string; name: string; currencies: string[] } | undefined
    >();
    expectTypeOf(platform.error).toMatchTypeOf<{ errors: { code: number; message: string }[] } | undefined>();
    // @ts-expect-error: a path the spec does not have
    await client.api.GET('/v1/nowhere');
    // @ts-expect-error: the path parameter is required
    await client.api.GET('/v1/platforms/{id}', { params: { path: {} } });
    await client.api.GET('/v1/addresses/{ledger_address}/trades/{amount_currency_id}/{price_currency_id}', {
      params: {
        path: { ledger_address: 'a', amount_currency_id: 'b', price_currency_id: 'c' },
        // @ts-expect-error: sort is asc or desc
        query: { sort: 'up' },
      },
    });
    for await (const movement of client.movements())
      expectTypeOf(movement.status).toEqualTypeOf<'in_progress' | 'pending_approval' | 'confirmed' | 'rejected'>();
  });
});
