/**
 * The signed-in session: the token pair, its absolute expiry, and one shared refresh. Tokens can be kept
 * across restarts through a small storage interface (memory by default, or the browser's localStorage).
 */
import { GatewayError, SessionEndedError } from './errors.js';

export interface SessionTokens {
  accessToken: string;
  refreshToken: string;
  /** Absolute Unix time (seconds) at which the access token expires: the token response's `expires_in`. */
  expiresAt: number;
}

/** Where a session's tokens are kept. `load` runs once, on first use; `save(null)` forgets them. */
export interface TokenStorage {
  load(): SessionTokens | null | Promise<SessionTokens | null>;
  save(tokens: SessionTokens | null): void | Promise<void>;
}

/** Tokens in memory: gone with the process or the page. */
export function memoryStorage(initial: SessionTokens | null = null): TokenStorage {
  let tokens = initial;
  return {
    load: () => tokens,
    save: (next) => {
      tokens = next;
    },
  };
}

/**
 * What `webStorage` uses of a Web Storage (`window.localStorage`, `sessionStorage`), declared here so that the
 * client's types need no DOM library in a Node project.
 */
export interface KeyValueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** Tokens in a Web Storage (e.g. `window.localStorage`) under `key`. */
export function webStorage(storage: KeyValueStorage, key = 'gateway.session'): TokenStorage {
  return {
    load: () => {
      const text = storage.getItem(key);
      if (!text) return null;
      try {
        const value = JSON.parse(text) as SessionTokens;
        return typeof value.accessToken === 'string' &&
          typeof value.refreshToken === 'string' &&
          Number.isFinite(value.expiresAt)
          ? value
          : null;
      } catch {
        return null;
      }
    },
    save: (tokens) => (tokens ? storage.setItem(key, JSON.stringify(tokens)) : storage.removeItem(key)),
  };
}

/** What the session needs to refresh: the token endpoint's refresh_token grant. */
export type RefreshGrant = (
  refreshToken: string,
) => Promise<{ ok: true; tokens: SessionTokens } | { ok: false; status: number; body: unknown }>;

export class Session {
  private tokens: SessionTokens | null = null;
  private loaded: Promise<void> | null = null;
  private refreshing: Promise<SessionTokens> | null = null;

  constructor(
    private readonly storage: TokenStorage,
    private readonly refreshGrant: RefreshGrant,
    private readonly now: () => number,
    /** Refresh this many seconds before the absolute expiry. */
    private readonly margin: number,
  ) {}

  private async ensureLoaded(): Promise<void> {
    this.loaded ??= Promise.resolve(this.storage.load()).then((tokens) => {
      this.tokens ??= tokens;
    });
    await this.loaded;
  }

  async current(): Promise<SessionTokens | null> {
    await this.ensureLoaded();
    return this.tokens;
  }

  async set(tokens: SessionTokens | null): Promise<void> {
    await this.ensureLoaded();
    this.tokens = tokens;
    await this.storage.save(tokens);
  }

  /** A usable access token: refreshed first when it expires within the margin; null when signed out. */
  async accessToken(): Promise<string | null> {
    const tokens = await this.current();
    if (!tokens) return null;
    if (tokens.expiresAt - this.margin > this.now() / 1000) return tokens.accessToken;
    return (await this.refresh(tokens.accessToken)).accessToken;
  }

  /**
   * Refreshes once for everyone: concurrent callers share one refresh. `staleAccessToken` is the token the
   * caller saw refused; when the session already holds a newer one, that one is returned without a call.
   */
  refresh(staleAccessToken?: string): Promise<SessionTokens> {
    if (this.refreshing) return this.refreshing;
    const tokens = this.tokens;
    if (!tokens) return Promise.reject(new SessionEndedError(401, undefined));
    if (staleAccessToken !== undefined && tokens.accessToken !== staleAccessToken) return Promise.resolve(tokens);
    this.refreshing = (async () => {
      try {
        const outcome = await this.refreshGrant(tokens.refreshToken);
        if (!outcome.ok) {
          if (outcome.status >= 500 || outcome.status === 429) throw new GatewayError(outcome.status, outcome.body);
          await this.set(null);
          throw new SessionEndedError(outcome.status, outcome.body);
        }
        await this.set(outcome.tokens);
        return outcome.tokens;
      } finally {
        this.refreshing = null;
      }
    })();
    return this.refreshing;
  }
}
