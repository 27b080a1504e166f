/**
 * The services every handler gets: the store, the catalogue cache, the secrets' keys and codecs, the Redis of
 * the shared limits, the clock (and the metrics, which also read the app's connections).
 */
import type { Config } from './config.js';
import type { Services } from './context.js';
import { AddressLimits } from './domain/address-limits.js';
import { createCatalogueCache } from './domain/catalogue-cache.js';
import { createCursorCodec } from './domain/cursor.js';
import { streamLimits } from './domain/event-stream-limits.js';
import { AccountEvents } from './domain/events.js';
import { RevokedFamilies } from './domain/revocations.js';
import { WithdrawalLimits } from './domain/withdrawal-limits.js';
import type { ConnectionCounts } from './lib/connection-caps.js';
import { createMetrics } from './metrics.js';
import { windowCounter } from './plugins/rate-limit.js';
import { loadSecrets } from './secrets.js';
import { createSharedLimits } from './shared-limits.js';
import { type DatabaseLog, watchDatabase } from './store/availability.js';
import type { Store } from './store/store.js';

/** Where the services write their warnings (the app's logger): a message, or an object and a message. */
export interface ServicesLog extends DatabaseLog {
  info(message: string): void;
  warn(message: string): void;
  warn(object: object, message: string): void;
}

export function createServices(
  config: Config,
  store: Store,
  options: { now: () => number; log: ServicesLog; connections?: ConnectionCounts },
): Services {
  const warn = (message: string) => options.log.warn(message);
  // Secrets generated into the data folder are a warning, said once, when they are made; read back at each
  // later start, one line of information.
  const secrets = loadSecrets(config, (message, generated) => (generated ? warn(message) : options.log.info(message)));
  const database = watchDatabase(store, options.log, { now: options.now });
  const catalogue = createCatalogueCache(store.db, options.now, { failed: (error) => database.failed(error) });
  const sharedLimits = config.redisUrl ? createSharedLimits(config.redisUrl, { warn }) : null;
  const revoked = new RevokedFamilies();
  const events = new AccountEvents(store, { now: options.now, warn, limits: streamLimits(config) });
  // A revoked sign-in's open streams end as soon as this instance learns of the revocation: at once when it
  // revoked it, on the database's announcement otherwise.
  revoked.onRevoked((family) => events.endSignIn(family));
  return {
    db: store.db,
    store,
    database,
    metrics: createMetrics(store, {
      database,
      catalogue,
      sharedLimits,
      eventStreams: events,
      connections: options.connections,
    }),
    catalogue,
    config,
    cursors: createCursorCodec(secrets.cursorSecret),
    tokens: {
      chainId: config.chainId,
      clientIds: config.clientIds,
      refreshTokenTtl: config.refreshTokenTtl,
      refreshReuseGraceSeconds: config.refreshReuseGraceSeconds,
      signingKey: secrets.signingKey,
      keyId: secrets.keyId,
      verifyingKeys: secrets.verifyingKeys,
      verified: new Map(),
      issued: new Map(),
      revoked,
    },
    events,
    proxySeed: secrets.proxySeed,
    sharedLimits,
    addressLimits: new AddressLimits(
      {
        signInsPerHour: config.signInsPerAddressHour,
        withdrawalAddressesPerHour: config.withdrawalAddressesPerAddressHour,
      },
      windowCounter(sharedLimits, 'gateway-per-address-'),
    ),
    withdrawalLimits: new WithdrawalLimits(
      { perAccount: config.withdrawalAddressesPerAccount, newPerMinute: config.withdrawalAddressRateLimit },
      windowCounter(sharedLimits, 'gateway-new-withdrawal-addresses-'),
    ),
    now: options.now,
  };
}
