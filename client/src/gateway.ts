/**
 * `createGatewayClient`: every operation of the spec, typed (`client.api`), plus a session that signs in by
 * signing, attaches the bearer token to the operations that need it, refreshes it before its absolute expiry
 * and once on a 401 with code 10000 (one refresh shared by concurrent requests), and iterators over lists.
 */

import type { components, paths } from '@gateway/generated';
import { operationMeta } from '@gateway/generated';
import { type ChainId, MAX_LIFETIME_SECONDS } from '@gateway/ledger';
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { passwordFor, type Signer, usernameOf } from './auth/password.js';
import { errorCatalogue, errorCodeOf, GatewayError } from './errors.js';
import { type EventsOptions, eventStream, type GatewayEvent } from './events.js';
import { cursorItems, offsetItems } from './paginate.js';
import { memoryStorage, Session, type SessionTokens, type TokenStorage } from './session.js';

type Schemas = components['schemas'];
export type ApiClient = Client<paths>;

export interface RetryOptions {
  /** Retries of an idempotent read answered 429 or 503 (default 3). */
  retries?: number;
  /** First backoff delay, doubled each time, unless the server sends Retry-After (default 250 ms). */
  baseDelayMs?: number;
  /** Longest wait between tries (default 10 s). */
  maxDelayMs?: number;
}

export interface GatewayClientOptions {
  /** The gateway's address, e.g. `https://api.example.com`. */
  baseUrl: string;
  /** The ledger's chain id the server runs on: `W` or `T`. It is part of what the user signs. */
  chainId: ChainId;
  /** The client id the server accepts, e.g. `waves.exchange`. It is part of what the user signs. */
  clientId: string;
  /** A fetch implementation (default: the global one). */
  fetch?: typeof globalThis.fetch;
  /** Where the session's tokens are kept (default: memory). */
  storage?: TokenStorage;
  /** Retry idempotent reads on 429/503 with backoff; off unless given. */
  retry?: RetryOptions;
  /** Refresh this many seconds before the access token's expiry (default 60). */
  refreshMarginSeconds?: number;
  /** The clock, milliseconds (default Date.now). */
  now?: () => number;
}

export interface LoginOptions {
  /** Seconds the access token lives, at most one week (default: one week). */
  lifetime?: number;
}

export interface TradeQuery {
  /** Ledger address of the trader. */
  address: string;
  amountCurrency: string;
  priceCurrency: string;
  /** Trades at or after this time. */
  from?: Date | string;
  /** Trades before this time. */
  to?: Date | string;
  sort?: 'asc' | 'desc';
  pageSize?: number;
}

export interface GatewayClient {
  /** Every operation of the spec, typed: `client.api.GET('/v1/platforms/{id}', { params: { path: { id } } })`. */
  readonly api: ApiClient;
  /** Signs in: signs the password for `<chainId>:<clientId>:<expiry>` and keeps the session. */
  login(signer: Signer, options?: LoginOptions): Promise<SessionTokens>;
  /**
   * Signs out: revokes the session's sign-in on the server (its refresh token and its access tokens,
   * `POST /v1/oauth2/revoke`), then forgets the tokens. The tokens are forgotten even when the server
   * cannot be reached; the error is thrown then, since the sign-in may still be alive there.
   */
  logout(): Promise<void>;
  /** The session's tokens, or null when signed out. */
  session(): Promise<SessionTokens | null>;
  movements(options?: { pageSize?: number }): AsyncIterable<Schemas['Movement']>;
  platforms(options?: { pageSize?: number }): AsyncIterable<Schemas['Platform']>;
  trades(query: TradeQuery): AsyncIterable<Schemas['Trade']>;
  depositCurrencies(options?: { pageSize?: number }): AsyncIterable<Schemas['DepositCurrency']>;
  withdrawalCurrencies(options?: { pageSize?: number }): AsyncIterable<Schemas['WithdrawalCurrency']>;
  /**
   * The account's events (`GET /v1/events`), live: movements as they are created or change. Reconnects by
   * itself with the last event id when the stream ends (the server ends it when the access token expires:
   * the session is refreshed first) or the connection drops, without yielding an event twice. Ends cleanly
   * when `signal` aborts or the loop is left (`break` cancels the request); throws `SessionEndedError` when
   * the session cannot be refreshed, `GatewayError` when the server refuses the request.
   */
  events(options?: EventsOptions): AsyncIterable<GatewayEvent>;
}

const FORM = 'application/x-www-form-urlencoded';
const formBody = (fields: unknown) => new URLSearchParams(fields as Record<string, string>).toString();
/** The methods that need a token, by path template (looked up on every call: no string is built for it). */
const protectedMethods = new Map<string, Set<string>>();
for (const meta of Object.values(operationMeta)) {
  if (meta.security.length === 0) continue;
  const methods = protectedMethods.get(meta.path) ?? new Set<string>();
  protectedMethods.set(meta.path, methods.add(meta.method));
}
// A Request's method is upper case for every method the spec uses (fetch normalizes GET, POST, ...).
const isProtected = (method: string, schemaPath: string) => protectedMethods.get(schemaPath)?.has(method) === true;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const iso = (value: Date | string | undefined) => (value instanceof Date ? value.toISOString() : value);

export function createGatewayClient(options: GatewayClientOptions): GatewayClient {
  const fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const now = options.now ?? Date.now;
  const api = createClient<paths>({ baseUrl: options.baseUrl, fetch: fetchImpl });

  /** The token endpoint, with the documented form body. */
  const tokenRequest = (body: Schemas['TokenRequest']) =>
    api.POST('/v1/oauth2/token', { body, headers: { 'Content-Type': FORM }, bodySerializer: formBody });
  const tokensOf = (pair: Schemas['TokenResponse']): SessionTokens => ({
    accessToken: pair.access_token,
    refreshToken: pair.refresh_token,
    expiresAt: pair.expires_in,
  });

  const session = new Session(
    options.storage ?? memoryStorage(),
    async (refreshToken) => {
      const { data, error, response } = await tokenRequest({
        grant_type: 'refresh_token',
        scope: 'general',
        client_id: options.clientId,
        refresh_token: refreshToken,
      });
      return data ? { ok: true, tokens: tokensOf(data) } : { ok: false, status: response.status, body: error };
    },
    now,
    options.refreshMarginSeconds ?? 60,
  );

  const retrying = async (request: Request, response: Response): Promise<Response> => {
    const retry = options.retry;
    if (!retry || request.method !== 'GET') return response;
    let current = response;
    for (
      let attempt = 0;
      attempt < (retry.retries ?? 3) && (current.status === 429 || current.status === 503);
      attempt++
    ) {
      const retryAfter = Number(current.headers.get('retry-after'));
      const backoff = (retry.baseDelayMs ?? 250) * 2 ** attempt;
      await sleep(
        Math.min(
          retry.maxDelayMs ?? 10_000,
          Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : backoff,
        ),
      );
      current = await fetchImpl(new Request(request));
    }
    return current;
  };

  /** A protected call's 401 for an expired token: refresh once and repeat it; then retries, if asked for. */
  const settle = async (request: Request, response: Response, schemaPath: string) => {
    let current = response;
    if (response.status === 401 && isProtected(request.method, schemaPath) && (await session.current())) {
      const body: unknown = await response
        .clone()
        .json()
        .catch(() => undefined);
      if (errorCodeOf(body) === errorCatalogue.invalid_access_token.code) {
        const stale = request.headers.get('Authorization')?.replace(/^Bearer /, '');
        const fresh = await session.refresh(stale);
        const again = new Request(request);
        again.headers.set('Authorization', `Bearer ${fresh.accessToken}`);
        current = await fetchImpl(again);
      }
    }
    return retrying(request, current);
  };
  // Public calls without retries pass through synchronously: an async hook costs a promise per call.
  const sessionMiddleware: Middleware = {
    onRequest({ request, schemaPath }) {
      if (!isProtected(request.method, schemaPath)) return undefined;
      return session.accessToken().then((token) => {
        if (token) request.headers.set('Authorization', `Bearer ${token}`);
        return request;
      });
    },
    onResponse({ request, response, schemaPath }) {
      if (!options.retry && !isProtected(request.method, schemaPath)) return undefined;
      return settle(request, response, schemaPath);
    },
  };
  api.use(sessionMiddleware);

  const unwrap = <T>(result: { data?: T; error?: unknown; response: Response }): T => {
    if (result.data === undefined) throw new GatewayError(result.response.status, result.error);
    return result.data;
  };

  return {
    api,
    async login(signer, loginOptions = {}) {
      const lifetime = loginOptions.lifetime ?? MAX_LIFETIME_SECONDS;
      if (!Number.isInteger(lifetime) || lifetime <= 0 || lifetime > MAX_LIFETIME_SECONDS) {
        throw new RangeError(`lifetime must be 1 to ${MAX_LIFETIME_SECONDS} seconds`);
      }
      const expiry = Math.floor(now() / 1000) + lifetime;
      const pair = unwrap(
        await tokenRequest({
          grant_type: 'password',
          scope: 'general',
          username: usernameOf(signer),
          password: await passwordFor(signer, options.chainId, options.clientId, expiry),
          client_id: options.clientId,
        }),
      );
      const tokens = tokensOf(pair);
      await session.set(tokens);
      return tokens;
    },
    async logout() {
      const tokens = await session.current();
      try {
        if (tokens) {
          unwrap(
            await api.POST('/v1/oauth2/revoke', {
              body: { token: tokens.refreshToken, token_type_hint: 'refresh_token', client_id: options.clientId },
              headers: { 'Content-Type': FORM },
              bodySerializer: formBody,
            }),
          );
        }
      } finally {
        await session.set(null);
      }
    },
    session: () => session.current(),
    movements: ({ pageSize } = {}) =>
      cursorItems(async (after) =>
        unwrap(await api.GET('/v1/movements', { params: { query: { limit: pageSize, after } } })),
      ),
    platforms: ({ pageSize } = {}) =>
      cursorItems(async (after) =>
        unwrap(await api.GET('/v1/platforms', { params: { query: { limit: pageSize, after } } })),
      ),
    trades: (query) =>
      cursorItems(async (after) =>
        unwrap(
          await api.GET('/v1/addresses/{ledger_address}/trades/{amount_currency_id}/{price_currency_id}', {
            params: {
              path: {
                ledger_address: query.address,
                amount_currency_id: query.amountCurrency,
                price_currency_id: query.priceCurrency,
              },
              query: {
                timestamp__gte: iso(query.from),
                timestamp__lt: iso(query.to),
                sort: query.sort,
                limit: query.pageSize,
                after,
              },
            },
          }),
        ),
      ),
    depositCurrencies: ({ pageSize } = {}) =>
      offsetItems(async (offset) =>
        unwrap(await api.GET('/v1/deposit/currencies', { params: { query: { limit: pageSize, offset } } })),
      ),
    withdrawalCurrencies: ({ pageSize } = {}) =>
      offsetItems(async (offset) =>
        unwrap(await api.GET('/v1/withdraw/currencies', { params: { query: { limit: pageSize, offset } } })),
      ),
    events: (eventsOptions) =>
      eventStream(async (lastEventId, signal) => {
        const { data, error, response } = await api.GET('/v1/events', {
          // The query form of Last-Event-ID: a header would need the server's CORS to allow it in browsers.
          params: { query: { last_event_id: lastEventId } },
          headers: { Accept: 'text/event-stream' },
          parseAs: 'stream',
          signal,
        });
        return { response, body: data, error };
      }, eventsOptions),
  };
}
