/**
 * Prometheus metrics of one app: requests by operation and status with latency, token grants and refusals
 * by reason, requests that sent a deprecated parameter, database pool state, whether the Redis of the shared limits answers, open event streams and
 * connections with their refusals (metrics-limits.ts), the ledger-key cache's hit rate (metrics-key-cache.ts),
 * and the process's own. Each app has its own registry.
 */

import client from 'prom-client';
import type { CatalogueCache } from './domain/catalogue-cache.js';
import type { ConnectionCounts } from './lib/connection-caps.js';
import { type HousekeeperSource, registerHousekeeper } from './metrics-housekeeper.js';
import { registerKeyCacheMetrics } from './metrics-key-cache.js';
import { type EventStreamSource, registerConnections, registerEventStreams } from './metrics-limits.js';
import { requestMetrics } from './metrics-requests.js';
import type { SharedLimits } from './shared-limits.js';
import type { DatabaseWatch } from './store/availability.js';
import type { Store } from './store/store.js';
import { VERSION } from './version.js';

export interface Metrics {
  readonly contentType: string;
  observeRequest(operation: string, status: number, seconds: number): void;
  tokenGranted(grant: string): void;
  tokenRefused(reason: string): void;
  /** A request of `operation` sent a parameter the spec marks deprecated (routes.ts; read or not). */
  deprecatedParameterSent(operation: string): void;
  /** A request refused because the instance is overloaded (`reason`: what is over its bound). */
  requestShed(reason: string): void;
  /** Where `gateway_unsent_answer_bytes` is read from (plugins/overload.ts counts it). */
  watchUnsentAnswers(read: () => number): void;
  /** Where the housekeeper's metrics are read from (`serve` only: operator/housekeeper.ts). */
  watchHousekeeper(source: HousekeeperSource): void;
  render(): Promise<string>;
}

/** What the gauges read at scrape time. */
export interface MetricSources {
  database: Pick<DatabaseWatch, 'up' | 'full' | 'fullRefusals'>;
  catalogue: Pick<CatalogueCache, 'staleMs'>;
  /** The Redis of the shared limits, when REDIS_URL is set. */
  sharedLimits?: Pick<SharedLimits, 'state'> | null;
  /** The open event streams and their refusals. */
  eventStreams?: EventStreamSource;
  /** The open connections, their caps, refusals and timeouts (plugins/connections.ts). */
  connections?: ConnectionCounts;
}

export function createMetrics(store: Store, sources: MetricSources): Metrics {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry, prefix: 'gateway_' });
  const requests = requestMetrics();
  // The registry reads a metric through its name and `get()`; these two are not prom-client classes.
  registry.registerMetric(requests.counter as unknown as client.Metric);
  registry.registerMetric(requests.histogram as unknown as client.Metric);
  const grants = new client.Counter({
    name: 'gateway_token_grants_total',
    help: 'Token pairs issued, by grant type (refresh_token_replayed: a spent refresh token presented again within the reuse grace).',
    labelNames: ['grant'],
    registers: [registry],
  });
  const refusals = new client.Counter({
    name: 'gateway_token_refusals_total',
    help: 'Token requests refused, by catalogue reason.',
    labelNames: ['reason'],
    registers: [registry],
  });
  const deprecatedParameters = new client.Counter({
    name: 'gateway_deprecated_parameter_requests_total',
    help: "Requests that sent a parameter the spec marks deprecated (read or not), by operation: credentials in the token endpoint's query string.",
    labelNames: ['operation'],
    registers: [registry],
  });
  new client.Gauge({
    name: 'gateway_db_pool_connections',
    help: 'Database pool connections, by state (PostgreSQL; SQLite has one connection).',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const pool = store.poolState();
      this.set({ state: 'total' }, pool.total);
      this.set({ state: 'idle' }, pool.idle);
      this.set({ state: 'waiting' }, pool.waiting);
    },
  });
  const shed = new client.Counter({
    name: 'gateway_requests_shed_total',
    help: 'Requests refused (503, 11202) because the instance was overloaded, by what was over its bound (answersOwedPerConnection: its connection was ended).',
    labelNames: ['reason'],
    registers: [registry],
  });
  let unsentAnswerBytes = () => 0;
  new client.Gauge({
    name: 'gateway_unsent_answer_bytes',
    help: 'Bytes of answers made and not yet written to the network: owed to clients that read slowly or not at all (OVERLOAD_UNSENT_MIB bounds them).',
    registers: [registry],
    collect() {
      this.set(unsentAnswerBytes());
    },
  });
  new client.Gauge({
    name: 'gateway_build_info',
    help: 'The release this instance runs (always 1).',
    labelNames: ['version', 'node_version', 'database'],
    registers: [registry],
  }).set({ version: VERSION, node_version: process.version, database: store.dialect }, 1);
  if (store.dialect === 'postgres') {
    new client.Gauge({
      name: 'gateway_listen_up',
      help: "Whether this instance hears the database's announcements of a topic (LISTEN), by topic.",
      labelNames: ['topic'],
      registers: [registry],
      collect() {
        for (const [topic, up] of Object.entries(store.listenState())) this.set({ topic }, up ? 1 : 0);
      },
    });
  }
  new client.Gauge({
    name: 'gateway_database_up',
    help: 'Whether the database answered the last time this instance asked (1) or not (0).',
    registers: [registry],
    collect() {
      this.set(sources.database.up ? 1 : 0);
    },
  });
  new client.Gauge({
    name: 'gateway_storage_full',
    help: "Whether the database's storage is full as this instance last saw it: writes answer 503 (11203), reads go on.",
    registers: [registry],
    collect() {
      this.set(sources.database.full ? 1 : 0);
    },
  });
  new client.Counter({
    name: 'gateway_storage_full_refusals_total',
    help: "Writes refused because the database's storage was full (each answered 503, code 11203).",
    registers: [registry],
    collect() {
      this.reset();
      this.inc(sources.database.fullRefusals);
    },
  });
  new client.Gauge({
    name: 'gateway_catalogue_stale_seconds',
    help: 'How long ago the catalogue served from memory was last known current: 0 while its checks succeed.',
    registers: [registry],
    collect() {
      this.set((sources.catalogue.staleMs() ?? 0) / 1000);
    },
  });
  const { sharedLimits } = sources;
  // Only with REDIS_URL: without it there is no Redis to be up or down, and a 0 would read as an outage.
  if (sharedLimits) {
    new client.Gauge({
      name: 'gateway_redis_up',
      help: 'Whether the Redis of the shared rate limits answers (1) or is lost (0: limits counted per instance).',
      registers: [registry],
      collect() {
        this.set(sharedLimits.state() === 'ok' ? 1 : 0);
      },
    });
  }
  if (sources.eventStreams) registerEventStreams(registry, sources.eventStreams);
  if (sources.connections) registerConnections(registry, sources.connections);
  registerKeyCacheMetrics(registry);
  return {
    contentType: registry.contentType,
    observeRequest: requests.observe,
    tokenGranted: (grant) => grants.inc({ grant }),
    tokenRefused: (reason) => refusals.inc({ reason }),
    deprecatedParameterSent: (operation) => deprecatedParameters.inc({ operation }),
    requestShed: (reason) => shed.inc({ reason }),
    watchUnsentAnswers: (read) => {
      unsentAnswerBytes = read;
    },
    watchHousekeeper: (source) => registerHousekeeper(registry, source),
    render: () => registry.metrics(),
  };
}
