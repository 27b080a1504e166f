/** What every handler gets besides its request: the services of the app and, when signed in, the caller. */
import type { Kysely } from 'kysely';
import type { Config } from './config.js';
import type { AddressLimits } from './domain/address-limits.js';
import type { CatalogueCache } from './domain/catalogue-cache.js';
import type { CursorCodec } from './domain/cursor.js';
import type { AccountEvents } from './domain/events.js';
import type { Caller, TokenSettings } from './domain/token-settings.js';
import type { WithdrawalLimits } from './domain/withdrawal-limits.js';
import { ApiError } from './errors.js';
import type { Metrics } from './metrics.js';
import type { SharedLimits } from './shared-limits.js';
import type { DatabaseWatch } from './store/availability.js';
import type { Database } from './store/schema.js';
import type { Store } from './store/store.js';

export interface Services {
  db: Kysely<Database>;
  store: Store;
  /** Whether the database answers, as this instance last saw it (lost and back are logged once each). */
  database: DatabaseWatch;
  metrics: Metrics;
  /** The catalogue (terms, platforms, staking yields), served from memory. */
  catalogue: CatalogueCache;
  config: Config;
  cursors: CursorCodec;
  tokens: TokenSettings;
  /** The accounts' events, read from the store and handed to their streams (GET /v1/events). */
  events: AccountEvents;
  proxySeed: string;
  /** The Redis of the limits every instance shares (REDIS_URL), and its state; null without one. */
  sharedLimits: SharedLimits | null;
  /** The bounds on the withdrawal proxies an account creates (counted in that Redis when there is one). */
  withdrawalLimits: WithdrawalLimits;
  /** The bounds per client address on new sign-ins and new withdrawal proxies. */
  addressLimits: AddressLimits;
  /** Current time, milliseconds since the epoch (injectable for tests). */
  now(): number;
}

export interface Context extends Services {
  /** The signed-in caller on protected operations (set by the bearer security handler). */
  caller: Caller | null;
  /**
   * The client's address as the per-address limits count it (an IPv6 client by its /64): on signed-in
   * operations and on those limited per address (the token endpoint); null elsewhere.
   */
  client: string | null;
}

/** The caller of a protected operation; its absence is a 401. */
export function callerOf(context: Context): Caller {
  if (!context.caller) throw new ApiError('invalid_access_token');
  return context.caller;
}

export const nowSeconds = (context: Services) => Math.floor(context.now() / 1000);
export const nowIso = (context: Services) => new Date(context.now()).toISOString();
