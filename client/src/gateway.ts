/**
 * `createGatewayClient`: every operation of the spec, typed (`client.api`) and as a plain method
 * (`client.calls`, generated), under a call policy (a deadline,
 * retries of idempotent calls); a session that signs in by signing, stays fresh (one refresh at a time, also
 * among tabs sharing its storage) and tells its changes; lists read item by item or page by page; the
 * account's live events.
 */

import type { components, paths } from '@gateway/generated';
import { type ChainId, MAX_LIFETIME_SECONDS } from '@gateway/ledger';
import createClient from 'openapi-fetch';
import { type ApiClient, sessionMiddleware, withCallPolicy } from './api.js';
import { passwordFor, type Signer, usernameOf } from './auth/password.js';
import { type CallInit, createCalls, formBody, type GatewayCallsClient } from './calls.js';
import { type EventsOptions, eventStream, type GatewayEvent } from './events.js';
import { defaultLocks, type LockManagerLike } from './locks.js';
import { cursorList, offsetList, type PagedList } from './paginate.js';
import type { CallOptions, RetryOptions } from './policy.js';
import { Session, type SessionChange, type SessionStore } from './session.js';
import { memoryStorage, type SessionTokens, type TokenStorage } from './storage.js';

type Schemas = components['schemas'];

export type { ApiClient, CallInit, CallOptions, GatewayCallsClient, RetryOptions };

export interface GatewayClientOptions extends CallOptions {
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
  /** The locks that make clients of one storage refresh in turn (default: `navigator.locks`, else this realm's). */
  locks?: LockManagerLike;
  /** Refresh this many seconds before the access token's expiry (default 60). */
  refreshMarginSeconds?: number;
  /** The clock, milliseconds (default Date.now). */
  now?: () => number;
}

export interface LoginOptions {
  /**
   * Seconds the access token lives, at most one week (default: one week): the expiry of the password signed.
   * Just after this client signed the same account out, up to a minute more (the server refuses a password
   * signed for the signed-out sign-in's expiry or an earlier one).
   */
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
  /**
   * Every operation of the spec as a method, generated from it: parameters by name, the success's body as the
   * answer, a GatewayError thrown otherwise: `await client.calls.getPlatform({ id: 'ETH' })`. Same session
   * and call policy as `api`.
   */
  readonly calls: GatewayCallsClient;
  /** Signs in: signs the password for `<chainId>:<clientId>:<expiry>` and keeps the session. Never retried. */
  login(signer: Signer, options?: LoginOptions): Promise<SessionTokens>;
  /**
   * Signs out: revokes the session's sign-in on the server (its refresh token and its access tokens,
   * `POST /v1/oauth2/revoke`), then forgets the tokens. The tokens are forgotten even when the server
   * cannot be reached; the error is thrown then, since the sign-in may still be alive there.
   */
  logout(): Promise<void>;
  /** The session's tokens, or null when signed out. */
  session(): Promise<SessionTokens | null>;
  /** Tells each change of the session (signed in, refreshed, signed out, here or in another tab); returns the unsubscriber. */
  onSessionChange(listener: (change: SessionChange) => void): () => void;
  /** The session as an external store for UI frameworks (`useSyncExternalStore(subscribe, getSnapshot)`). */
  readonly sessionStore: SessionStore;
  /** This client with other call options (timeout, retries); it shares the session. */
  withOptions(options: CallOptions): GatewayClient;
  /** Stops hearing of other tabs' session changes. */
  close(): void;
  movements(options?: { pageSize?: number }): PagedList<Schemas['Movement']>;
  platforms(options?: { pageSize?: number }): PagedList<Schemas['Platform']>;
  trades(query: TradeQuery): PagedList<Schemas['Trade']>;
  depositCurrencies(options?: { pageSize?: number }): PagedList<Schemas['DepositCurrency']>;
  withdrawalCurrencies(options?: { pageSize?: number }): PagedList<Schemas['WithdrawalCurrency']>;
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
/**
 * How much later than asked a password may be signed to follow a sign-out of the same account at once: a
 * sign-out ends every password signed for its sign-in's expiry or an earlier one (11309), so the same
 * lifetime asked again within this many seconds is signed for one second past it. A shorter lifetime than
 * that is not stretched: the server's refusal says why.
 */
const RESIGN_WINDOW_SECONDS = 60;
const iso = (value: Date | string | undefined) => (value instanceof Date ? value.toISOString() : value);
const tokensOf = (pair: Schemas['TokenResponse']): SessionTokens => ({
  accessToken: pair.access_token,
  refreshToken: pair.refresh_token,
  expiresAt: pair.expires_in,
});

export function createGatewayClient(options: GatewayClientOptions): GatewayClient {
  const fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const now = options.now ?? Date.now;
  const base = createClient<paths>({ baseUrl: options.baseUrl, fetch: fetchImpl });
  const root = withCallPolicy(base, options);
  /** The token endpoint, with the documented form body. */
  const tokenRequest = (api: ApiClient, body: Schemas['TokenRequest']) =>
    api.POST('/v1/oauth2/token', { body, headers: { 'Content-Type': FORM }, bodySerializer: formBody });

  const session = new Session(
    options.storage ?? memoryStorage(),
    async (refreshToken) => {
      const { data, error, response } = await tokenRequest(root, {
        grant_type: 'refresh_token',
        scope: 'general',
        client_id: options.clientId,
        refresh_token: refreshToken,
      });
      return data
        ? { ok: true, tokens: tokensOf(data) }
        : { ok: false, status: response.status, body: error, response };
    },
    now,
    options.refreshMarginSeconds ?? 60,
    options.locks ?? defaultLocks(),
  );
  base.use(sessionMiddleware(session, fetchImpl));

  /** This client's sign-in (its account and the expiry its password was signed for), and those it signed out. */
  let signedIn: { username: string; expiry: number } | null = null;
  const signedOutThrough = new Map<string, number>();

  const clientWith = (callOptions: CallOptions, api: ApiClient): GatewayClient => {
    const calls = createCalls(api);
    return {
      api,
      calls,
      async login(signer, loginOptions = {}) {
        const lifetime = loginOptions.lifetime ?? MAX_LIFETIME_SECONDS;
        if (!Number.isInteger(lifetime) || lifetime <= 0 || lifetime > MAX_LIFETIME_SECONDS) {
          throw new RangeError(`lifetime must be 1 to ${MAX_LIFETIME_SECONDS} seconds`);
        }
        const username = usernameOf(signer);
        const asked = Math.floor(now() / 1000) + lifetime;
        const through = signedOutThrough.get(username);
        const expiry =
          through !== undefined && asked <= through && through - asked < RESIGN_WINDOW_SECONDS ? through + 1 : asked;
        const pair = await calls.createToken({
          grant_type: 'password',
          scope: 'general',
          username,
          password: await passwordFor(signer, options.chainId, options.clientId, expiry),
          client_id: options.clientId,
        });
        const tokens = tokensOf(pair);
        await session.set(tokens, 'login');
        signedIn = { username, expiry };
        return tokens;
      },
      async logout() {
        const tokens = await session.current();
        try {
          if (tokens) {
            await calls.revokeToken({
              token: tokens.refreshToken,
              token_type_hint: 'refresh_token',
              client_id: options.clientId,
            });
          }
        } finally {
          if (tokens && signedIn) {
            const { username, expiry } = signedIn;
            signedOutThrough.set(username, Math.max(expiry, signedOutThrough.get(username) ?? 0));
          }
          signedIn = null;
          await session.set(null, 'logout');
        }
      },
      session: () => session.current(),
      onSessionChange: (listener) => session.onChange(listener),
      sessionStore: session.store,
      withOptions: (more) => {
        const merged = { ...callOptions, ...more };
        return clientWith(merged, withCallPolicy(base, merged));
      },
      close: () => session.close(),
      movements: ({ pageSize } = {}) => cursorList((after) => calls.listMovements({ limit: pageSize, after })),
      platforms: ({ pageSize } = {}) => cursorList((after) => calls.listPlatforms({ limit: pageSize, after })),
      trades: (query) =>
        cursorList((after) =>
          calls.listTrades({
            ledger_address: query.address,
            amount_currency_id: query.amountCurrency,
            price_currency_id: query.priceCurrency,
            timestamp__gte: iso(query.from),
            timestamp__lt: iso(query.to),
            sort: query.sort,
            limit: query.pageSize,
            after,
          }),
        ),
      depositCurrencies: ({ pageSize } = {}) =>
        offsetList((offset) => calls.listDepositCurrencies({ limit: pageSize, offset })),
      withdrawalCurrencies: ({ pageSize } = {}) =>
        offsetList((offset) => calls.listWithdrawalCurrencies({ limit: pageSize, offset })),
      events: (eventsOptions) => {
        // The stream retries by itself (events.ts): its connects are not retried by the call policy as well.
        const connect = withCallPolicy(base, { ...callOptions, retry: false });
        return eventStream(async (lastEventId, signal) => {
          const { data, error, response } = await connect.GET('/v1/events', {
            // The query form of Last-Event-ID: a header would need the server's CORS to allow it in browsers.
            params: { query: { last_event_id: lastEventId } },
            headers: { Accept: 'text/event-stream' },
            parseAs: 'stream',
            signal,
          });
          return { response, body: data, error };
        }, eventsOptions);
      },
    };
  };
  return clientWith(options, root);
}
