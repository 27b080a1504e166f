/**
 * Prometheus metrics of one app: requests by operation and status with latency, token grants and refusals
 * by reason, database pool state, and the process's own. Each app has its own registry.
 */
import client from 'prom-client';
import type { Store } from './store/store.js';

export interface Metrics {
  readonly contentType: string;
  observeRequest(operation: string, status: number, seconds: number): void;
  tokenGranted(grant: string): void;
  tokenRefused(reason: string): void;
  render(): Promise<string>;
}

export function createMetrics(store: Store): Metrics {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry, prefix: 'gateway_' });
  const requests = new client.Counter({
    name: 'gateway_http_requests_total',
    help: 'Requests answered, by operation and status.',
    labelNames: ['operation', 'status'],
    registers: [registry],
  });
  const latency = new client.Histogram({
    name: 'gateway_http_request_duration_seconds',
    help: 'Time to answer, by operation and status.',
    labelNames: ['operation', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const grants = new client.Counter({
    name: 'gateway_token_grants_total',
    help: 'Token pairs issued, by grant type.',
    labelNames: ['grant'],
    registers: [registry],
  });
  const refusals = new client.Counter({
    name: 'gateway_token_refusals_total',
    help: 'Token requests refused, by catalogue reason.',
    labelNames: ['reason'],
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
  const seriesByKey = new Map<
    string,
    {
      count: ReturnType<typeof requests.labels>;
      duration: ReturnType<typeof latency.labels>;
    }
  >();
  return {
    contentType: registry.contentType,
    observeRequest(operation, status, seconds) {
      // Labelled series looked up once per (operation, status), both bounded sets, not hashed per request.
      const key = `${operation} ${status}`;
      let series = seriesByKey.get(key);
      if (!series) {
        const labels = { operation, status: String(status) };
        series = { count: requests.labels(labels), duration: latency.labels(labels) };
        seriesByKey.set(key, series);
      }
      series.count.inc();
      series.duration.observe(seconds);
    },
    tokenGranted: (grant) => grants.inc({ grant }),
    tokenRefused: (reason) => refusals.inc({ reason }),
    render: () => registry.metrics(),
  };
}
