/**
 * `/metrics` on a port of its own (METRICS_PORT): served there, on loopback, and answered 404 on the API's
 * port, so that the public proxy in front of that port can never show it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway } from '../src/gateway.js';
import { freePort } from '../src/prism.js';

describe('METRICS_PORT', () => {
  let gateway: RunningGateway;
  let metricsPort: number;
  beforeAll(async () => {
    metricsPort = await freePort();
    gateway = await startGateway({ METRICS_PORT: String(metricsPort), LOG_LEVEL: 'info' });
  }, 60_000);
  afterAll(() => gateway.stop());

  it('serves the metrics on that port only, and the API port answers 404 at /metrics', async () => {
    await fetch(`${gateway.url}/v1/platforms`);
    const onApi = await fetch(`${gateway.url}/metrics`);
    expect(onApi.status).toBe(404);
    expect(((await onApi.json()) as { errors: { code: number }[] }).errors[0]?.code).toBe(10400);

    const own = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(own.status).toBe(200);
    expect(own.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await own.text();
    expect(text).toMatch(
      /^gateway_build_info\{version="\d+\.\d+\.\d+",node_version="v\d+[^"]*",database="sqlite"\} 1$/m,
    );
    expect(text).toMatch(/^gateway_http_requests_total\{operation="listPlatforms",status="200"\} 1$/m);
    expect(text).toMatch(/^gateway_database_up 1$/m);

    expect((await fetch(`http://127.0.0.1:${metricsPort}/v1/platforms`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${metricsPort}/metrics`, { method: 'POST' })).status).toBe(404);
    expect(gateway.output()).toContain(`metrics served at http://127.0.0.1:${metricsPort}/metrics`);
  });
});
