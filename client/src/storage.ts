/**
 * Where a session's tokens are kept: memory (default) or a Web Storage shared by the tabs of a site, which
 * tells each tab what the others saved (the `storage` event, and a BroadcastChannel for other clients of
 * the same page, which get no `storage` event).
 */

export interface SessionTokens {
  accessToken: string;
  refreshToken: string;
  /** Absolute Unix time (seconds) at which the access token expires: the token response's `expires_in`. */
  expiresAt: number;
}

/** Where a session's tokens are kept. `load` runs on first use and again before each refresh; `save(null)` forgets them. */
export interface TokenStorage {
  load(): SessionTokens | null | Promise<SessionTokens | null>;
  save(tokens: SessionTokens | null): void | Promise<void>;
  /**
   * A storage shared by several clients (tabs) has a name: clients of one name refresh one at a time (a Web
   * Lock of that name), re-reading the storage first.
   */
  readonly name?: string;
  /** Tells of the tokens saved by others (other tabs, other clients of the page); returns the unsubscriber. */
  subscribe?(listener: (tokens: SessionTokens | null) => void): () => void;
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

/** What `webStorage` reads of a `storage` event. */
export interface StorageEventLike {
  readonly key: string | null;
  readonly newValue?: string | null;
  readonly storageArea?: unknown;
}

/** Where `storage` events arrive: the page's `window`. */
export interface StorageEventTarget {
  addEventListener(type: 'storage', listener: (event: StorageEventLike) => void): void;
  removeEventListener(type: 'storage', listener: (event: StorageEventLike) => void): void;
}

export interface WebStorageOptions {
  /** Where the browser fires `storage` events (default: the global object, `window` in a page); null for none. */
  events?: StorageEventTarget | null;
  /** Tell the other clients of this page too, on a BroadcastChannel (default: where the runtime has one). */
  broadcast?: boolean;
}

function parse(text: string | null | undefined): SessionTokens | null {
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
}

/** A BroadcastChannel that does not keep a Node process alive; undefined where there is none. */
function channel(name: string): BroadcastChannel | undefined {
  if (typeof BroadcastChannel !== 'function') return undefined;
  const opened = new BroadcastChannel(name);
  (opened as { unref?: () => void }).unref?.();
  return opened;
}

/** Tokens in a Web Storage (e.g. `window.localStorage`) under `key`, shared with the site's other tabs. */
export function webStorage(
  storage: KeyValueStorage,
  key = 'gateway.session',
  options: WebStorageOptions = {},
): TokenStorage {
  const events =
    options.events === undefined
      ? typeof (globalThis as Partial<StorageEventTarget>).addEventListener === 'function'
        ? (globalThis as unknown as StorageEventTarget)
        : null
      : options.events;
  const broadcast = options.broadcast !== false;
  let sender: BroadcastChannel | undefined;
  const load = () => parse(storage.getItem(key));
  return {
    name: key,
    load,
    save: (tokens) => {
      if (tokens) storage.setItem(key, JSON.stringify(tokens));
      else storage.removeItem(key);
      if (broadcast) {
        sender ??= channel(`gateway.session:${key}`);
        sender?.postMessage('saved');
      }
    },
    subscribe(listener) {
      // `key` null: the whole storage was cleared.
      const onStorage = (event: StorageEventLike) => {
        if (event.key !== key && event.key !== null) return;
        if (event.storageArea !== undefined && event.storageArea !== storage) return;
        listener(event.key === null ? null : parse(event.newValue));
      };
      events?.addEventListener('storage', onStorage);
      const receiver = broadcast ? channel(`gateway.session:${key}`) : undefined;
      if (receiver) receiver.onmessage = () => listener(load());
      return () => {
        events?.removeEventListener('storage', onStorage);
        receiver?.close();
      };
    },
  };
}
