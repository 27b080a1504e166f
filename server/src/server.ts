/** Listens: builds the app, serves it, and closes it gracefully on SIGTERM/SIGINT. */

import { setFlagsFromString } from 'node:v8';
import { MAX_LIFETIME_SECONDS } from '@gateway/ledger';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { oldGenerationGrowthFlag } from './lib/heap.js';
import { serveMetrics } from './metrics-server.js';
import { loadDemoIfEmpty } from './operator/commands.js';
import { type HousekeeperOptions, startHousekeeper } from './operator/housekeeper.js';
import { housekeepingTasks } from './store/housekeeping.js';
import { isPostgresUrl, openStore } from './store/store.js';
import type { Tracing } from './tracing.js';

/**
 * What does not work behind a transaction pooler without a direct connection, in one sentence; null when
 * nothing is missing.
 */
export function unheardWithoutDirectUrl(config: Config): string | null {
  if (!isPostgresUrl(config.databaseUrl) || config.databasePoolMode !== 'transaction' || config.databaseDirectUrl) {
    return null;
  }
  return (
    'DATABASE_POOL_MODE=transaction without DATABASE_DIRECT_URL: this instance cannot LISTEN through the pooler, ' +
    'so event streams receive only the movements imported through this instance, and revocations made on other ' +
    "instances are not seen here until their access tokens expire; set DATABASE_DIRECT_URL to the database's own address"
  );
}

/** The housekeeper of `serve` (operator/housekeeper.ts), as configured. */
export function housekeeperOptions(
  config: Config,
  log: { info(message: string): void; warn(message: string): void },
): HousekeeperOptions {
  const postgres = isPostgresUrl(config.databaseUrl);
  // The lock is held by a session: the direct connection, or DATABASE_URL unless it is a transaction pooler.
  const lockUrl = !postgres
    ? undefined
    : config.databaseDirectUrl || (config.databasePoolMode === 'transaction' ? undefined : config.databaseUrl);
  return {
    tasks: housekeepingTasks({
      eventRetentionHours: config.eventRetentionHours,
      accessTokenSeconds: MAX_LIFETIME_SECONDS,
    }),
    batch: HOUSEKEEPING_BATCH,
    pauseMs: HOUSEKEEPING_PAUSE_MS,
    everyMs: config.housekeepingIntervalSeconds * 1000,
    electionMs: Math.min(5000, config.housekeepingIntervalSeconds * 1000),
    lockUrl,
    log: { info: (m) => log.info(m), warn: (m) => log.warn(m) },
  };
}

/** Rows a housekeeping batch deletes (one short transaction: a few ms of the SQLite writer). */
const HOUSEKEEPING_BATCH = 500;
/** The pause between two batches (ms): requests take their turn. */
const HOUSEKEEPING_PAUSE_MS = 20;

/** Connections the kernel keeps waiting to be accepted (listen(2)'s backlog). */
const LISTEN_BACKLOG = 4096;

export async function startServer(
  config: Config,
  options: { demo?: boolean; tracing?: Tracing | null } = {},
): Promise<FastifyInstance> {
  // The old generation's pace, before the server's own heap is made (lib/heap.ts: V8's under a small limit
  // collected it every few seconds under load).
  const growth = oldGenerationGrowthFlag();
  if (growth) setFlagsFromString(growth);
  let notice = (message: string): void => void process.stderr.write(`${message}\n`);
  const store = openStore(config.databaseUrl, {
    poolSize: config.databasePoolSize,
    poolMode: config.databasePoolMode,
    directUrl: config.databaseDirectUrl,
    notice: (message) => notice(message),
  });
  const tracing = options.tracing ?? null;
  // Demo mode (`npm start`): a frontend's dev server on another local port may call it (CORS).
  const app = await buildApp(config, {
    store,
    localDevelopmentOrigins: options.demo === true,
    // A database that is not up yet (started with it, restarting) is waited for, for a bounded time.
    databaseWaitMs: config.databaseWaitSeconds * 1000,
    tracing,
  });
  notice = (message) => app.log.warn(message);
  if (growth) app.log.info(`the old generation grows to twice its live size between full collections (${growth})`);
  const unheard = unheardWithoutDirectUrl(config);
  if (unheard) app.log.warn(unheard);
  const housekeeper = startHousekeeper(store, housekeeperOptions(config, app.log));
  app.gatewayMetrics.watchHousekeeper(housekeeper);
  // The housekeeper's batch in progress ends before the store closes.
  app.addHook('onClose', async () => {
    await housekeeper.close();
    await store.close();
  });
  if (options.demo && (await loadDemoIfEmpty(store, config.chainId))) {
    app.log.info('empty database: loaded the demo exchange (catalogue, movements and trades of the demo account)');
  }
  if (config.metricsPort !== 0) {
    const metrics = await serveMetrics(app.gatewayMetrics, config.metricsHost, config.metricsPort);
    app.addHook('onClose', () => metrics.close());
    app.log.info(`metrics served at ${metrics.url} (not on the API's port)`);
  }
  // Connections waiting to be accepted: a burst of clients (hundreds at once) waits in the kernel for its
  // turn instead of being reset, and is then answered or shed (Node's default, 511, reset some of 1,600 in
  // test/attack/hostile-bounds.test.ts). The kernel caps it at net.core.somaxconn.
  await app.listen({ port: config.port, host: config.host, backlog: LISTEN_BACKLOG });
  let closing = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      if (closing) return;
      closing = true;
      app.log.info(`${signal}: closing (finishing in-flight requests)`);
      app
        .close()
        // The spans of the last requests are exported before the process ends.
        .then(() => tracing?.shutdown())
        .then(
          () => process.exit(0),
          (error: unknown) => {
            app.log.error({ err: error }, 'error while closing');
            process.exit(1);
          },
        );
    });
  }
  return app;
}
