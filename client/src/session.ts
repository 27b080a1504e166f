/**
 * The signed-in session: the token pair, its absolute expiry, and one refresh at a time, also among the
 * tabs that share its storage (a lock of the storage's name, and the storage re-read under it: a tab whose
 * refresh token another tab has spent adopts the stored pair instead of presenting it again, which the
 * gateway would take for a theft and answer by revoking the sign-in). Changes are told to listeners
 * (`onSessionChange`) and to a store for UI frameworks (`subscribe`/`getSnapshot`).
 */
import { GatewayError, SessionEndedError } from './errors.js';
import { type LockManagerLike, realmLocks } from './locks.js';
import type { SessionTokens, TokenStorage } from './storage.js';

export { type KeyValueStorage, memoryStorage, type SessionTokens, type TokenStorage, webStorage } from './storage.js';

/** What the session needs to refresh: the token endpoint's refresh_token grant. */
export type RefreshGrant = (
  refreshToken: string,
) => Promise<{ ok: true; tokens: SessionTokens } | { ok: false; status: number; body: unknown; response?: Response }>;

/**
 * A change of the session. `reason`: `login`/`logout` by this client; `restored` from the storage at start;
 * `refresh` by this client; `refresh_refused` the server refused the refresh token (expired, revoked, or
 * reused); `storage` done by another tab or client sharing the storage.
 */
export type SessionChange =
  | { type: 'signed_in'; reason: 'login' | 'restored' | 'storage'; tokens: SessionTokens }
  | { type: 'refreshed'; reason: 'refresh' | 'storage'; tokens: SessionTokens }
  | { type: 'signed_out'; reason: 'logout' | 'refresh_refused' | 'storage'; tokens: null };
type Reason = SessionChange['reason'];

/** The session as a UI shows it; `loading` until the storage is read. A new object on every change. */
export interface SessionSnapshot {
  readonly status: 'loading' | 'signed_in' | 'signed_out';
  readonly tokens: SessionTokens | null;
}

/** An external store (React's `useSyncExternalStore(store.subscribe, store.getSnapshot)`). */
export interface SessionStore {
  subscribe(onChange: () => void): () => void;
  getSnapshot(): SessionSnapshot;
}

const same = (a: SessionTokens | null, b: SessionTokens | null) =>
  a === b || (a !== null && b !== null && a.accessToken === b.accessToken && a.refreshToken === b.refreshToken);
/** A listener's exception is reported, as an event listener's is, without breaking the session. */
const report = (error: unknown) =>
  queueMicrotask(() => {
    throw error;
  });
const ids = new WeakMap<TokenStorage, string>();

export class Session {
  private tokens: SessionTokens | null = null;
  private loaded: Promise<void> | null = null;
  private refreshing: Promise<SessionTokens> | null = null;
  private snapshot: SessionSnapshot = { status: 'loading', tokens: null };
  private readonly listeners = new Set<(change: SessionChange) => void>();
  private readonly watchers = new Set<() => void>();
  private unsubscribe: (() => void) | undefined;
  private readonly lockName: string;
  readonly store: SessionStore;

  constructor(
    private readonly storage: TokenStorage,
    private readonly refreshGrant: RefreshGrant,
    private readonly now: () => number,
    /** Refresh this many seconds before the absolute expiry. */
    private readonly margin: number,
    private readonly locks: LockManagerLike,
  ) {
    if (storage.name === undefined && !ids.has(storage)) ids.set(storage, String(Math.random()));
    this.lockName = `gateway.session:${storage.name ?? ids.get(storage)}`;
    this.store = {
      subscribe: (onChange) => {
        this.ensureLoaded().catch(() => undefined);
        this.watchers.add(onChange);
        return () => this.watchers.delete(onChange);
      },
      getSnapshot: () => {
        if (!this.loaded) this.ensureLoaded().catch(() => undefined);
        return this.snapshot;
      },
    };
  }

  /** Reads the storage once (synchronously when it answers so) and starts hearing of others' changes. */
  private ensureLoaded(): Promise<void> {
    if (!this.loaded) {
      const settle = (tokens: SessionTokens | null) => {
        if (this.snapshot.status === 'loading') this.apply(this.tokens ?? tokens, 'restored');
        this.unsubscribe ??= this.storage.subscribe?.((next) => {
          if (!same(next, this.tokens)) this.apply(next, 'storage');
        });
      };
      const value = this.storage.load();
      this.loaded =
        typeof (value as PromiseLike<unknown> | null)?.then === 'function'
          ? Promise.resolve(value).then(settle)
          : Promise.resolve(settle(value as SessionTokens | null));
    }
    return this.loaded;
  }

  /** Takes `next` as the session and tells listeners what changed. */
  private apply(next: SessionTokens | null, reason: Reason): void {
    const previous = this.tokens;
    this.tokens = next;
    const status = next ? 'signed_in' : 'signed_out';
    if (this.snapshot.status === status && same(this.snapshot.tokens, next)) return;
    this.snapshot = { status, tokens: next };
    const type = !next ? 'signed_out' : !previous ? 'signed_in' : 'refreshed';
    const change =
      (type === 'signed_out' && !previous) || (reason === 'restored' && !next)
        ? undefined
        : { type, reason, tokens: next };
    for (const watcher of this.watchers) {
      try {
        watcher();
      } catch (error) {
        report(error);
      }
    }
    if (!change) return;
    for (const listener of this.listeners) {
      try {
        listener(change as SessionChange);
      } catch (error) {
        report(error);
      }
    }
  }

  onChange(listener: (change: SessionChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops hearing of other tabs' changes. */
  close(): void {
    this.unsubscribe?.();
  }

  async current(): Promise<SessionTokens | null> {
    await this.ensureLoaded();
    return this.tokens;
  }

  async set(tokens: SessionTokens | null, reason: Reason): Promise<void> {
    await this.ensureLoaded();
    this.apply(tokens, reason);
    await this.storage.save(tokens);
  }

  private fresh(tokens: SessionTokens): boolean {
    return tokens.expiresAt - this.margin > this.now() / 1000;
  }

  /** A usable access token: refreshed first when it expires within the margin; null when signed out. */
  async accessToken(): Promise<string | null> {
    const tokens = await this.current();
    if (!tokens) return null;
    if (this.fresh(tokens)) return tokens.accessToken;
    return (await this.refresh(tokens.accessToken)).accessToken;
  }

  /**
   * Refreshes once for everyone: concurrent callers share one refresh, and clients of one storage take
   * turns. `staleAccessToken` is the token the caller saw refused or expiring; when the session (or the
   * storage, re-read) already holds another one, that one is returned without spending the refresh token.
   */
  refresh(staleAccessToken?: string): Promise<SessionTokens> {
    if (this.refreshing) return this.refreshing;
    const tokens = this.tokens;
    if (!tokens) return Promise.reject(new SessionEndedError(401, undefined));
    if (staleAccessToken !== undefined && tokens.accessToken !== staleAccessToken) return Promise.resolve(tokens);
    const locks = this.storage.name === undefined ? realmLocks : this.locks;
    const stale = staleAccessToken ?? tokens.accessToken;
    this.refreshing = locks.request(this.lockName, () => this.refreshHolding(stale));
    const reset = () => {
      this.refreshing = null;
    };
    this.refreshing.then(reset, reset);
    return this.refreshing;
  }

  /** The storage again: what another tab saved meanwhile is adopted. */
  private async reload(): Promise<SessionTokens | null> {
    const stored = await this.storage.load();
    if (!same(stored, this.tokens)) this.apply(stored, 'storage');
    return stored;
  }

  private async refreshHolding(stale: string): Promise<SessionTokens> {
    const stored = await this.reload();
    if (!stored) throw new SessionEndedError(401, undefined);
    // Another tab refreshed (or signed in) while this one waited for the lock: its pair is the session.
    if (stored.accessToken !== stale && this.fresh(stored)) return stored;
    const outcome = await this.refreshGrant(stored.refreshToken);
    if (outcome.ok) {
      await this.set(outcome.tokens, 'refresh');
      return outcome.tokens;
    }
    const { status, body, response } = outcome;
    // The server could not answer now: it left the refresh token unspent, the session stays.
    if (status >= 500 || status === 429)
      throw response ? GatewayError.of(response, body) : new GatewayError(status, body);
    // Refused. A new sign-in stored meanwhile by a tab without the lock is taken rather than forgotten.
    const now = await this.reload();
    if (now && now.refreshToken !== stored.refreshToken) return now;
    await this.set(null, 'refresh_refused');
    throw new SessionEndedError(status, body, response);
  }
}
