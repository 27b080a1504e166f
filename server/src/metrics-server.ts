/**
 * GET /metrics on a port of its own (METRICS_PORT), for a scraper on the private network: the public proxy
 * in front of the API's port never sees it. Nothing else is served there.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Metrics } from './metrics.js';

export interface MetricsServer {
  readonly url: string;
  close(): Promise<void>;
}

export function serveMetrics(metrics: Metrics, host: string, port: number): Promise<MetricsServer> {
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    metrics.render().then(
      (text) => {
        response.writeHead(200, { 'content-type': metrics.contentType });
        response.end(request.method === 'HEAD' ? undefined : text);
      },
      () => response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics failed\n'),
    );
  });
  // A scraper's connection that says nothing is not held for long.
  server.headersTimeout = 10_000;
  server.requestTimeout = 10_000;
  return new Promise((resolve, reject) => {
    // A port in use or refused is told with the settings that choose it (cli.ts words it).
    server.once('error', (error) => reject(Object.assign(error, { setting: 'METRICS_PORT or METRICS_HOST' })));
    server.listen(port, host, () => {
      const { address, port: bound } = server.address() as AddressInfo;
      resolve({
        url: `http://${address.includes(':') ? `[${address}]` : address}:${bound}/metrics`,
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
