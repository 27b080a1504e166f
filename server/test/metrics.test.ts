/**
 * The request metrics are accumulated by hand (prom-client's own cost 1.8 µs a request); what /metrics shows
 * for them must be exactly what prom-client's Counter and Histogram show for the same observations.
 */
import client from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../src/metrics.js';
import type { Store } from '../src/store/store.js';

const store = { dialect: 'sqlite', poolState: () => ({ total: 1, idle: 1, waiting: 0 }) } as unknown as Store;
const sources = { database: { up: true, full: false, fullRefusals: 0 }, catalogue: { staleMs: () => null } };

/** The lines of the named metric family (HELP, TYPE and samples). */
const family = (text: string, name: string) =>
  text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name}_`) || line.includes(` ${name} `));

describe('request metrics', () => {
  it('render as prom-client would render the same observations', async () => {
    const observations: [string, number, number][] = [
      ['getPlatform', 200, 0.0005],
      ['getPlatform', 200, 0.001], // on a bucket's bound: counted in it
      ['getPlatform', 200, 0.003],
      ['getPlatform', 200, 3], // above every bound
      ['getPlatform', 404, 0.0002],
      ['listMovements', 200, 0.04],
      ['/v1/nowhere', 404, 0.0001],
    ];
    const metrics = createMetrics(store, sources);
    for (const [operation, status, seconds] of observations) metrics.observeRequest(operation, status, seconds);
    const ours = await metrics.render();

    const registry = new client.Registry();
    const counter = new client.Counter({
      name: 'gateway_http_requests_total',
      help: 'Requests answered, by operation and status.',
      labelNames: ['operation', 'status'],
      registers: [registry],
    });
    const histogram = new client.Histogram({
      name: 'gateway_http_request_duration_seconds',
      help: 'Time to answer, by operation and status.',
      labelNames: ['operation', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    });
    for (const [operation, status, seconds] of observations) {
      counter.inc({ operation, status: String(status) });
      histogram.observe({ operation, status: String(status) }, seconds);
    }
    const reference = await registry.metrics();

    for (const name of ['gateway_http_requests_total', 'gateway_http_request_duration_seconds']) {
      const lines = family(ours, name);
      expect(lines.length).toBeGreaterThan(3);
      expect(lines).toEqual(family(reference, name));
    }
    expect(ours).toContain(
      'gateway_http_request_duration_seconds_bucket{le="0.001",operation="getPlatform",status="200"} 2',
    );
    expect(ours).toContain('gateway_http_request_duration_seconds_count{operation="getPlatform",status="200"} 4');
  });
});
