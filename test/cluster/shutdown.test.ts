/** SIGTERM: the server stops accepting, finishes the requests in flight, closes the database and exits 0. */
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { startGateway } from '../src/gateway.js';

function get(url: string, agent: http.Agent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
        response.on('error', reject);
      })
      .on('error', reject);
  });
}

describe('graceful shutdown', () => {
  it('loses no request that was in flight', async () => {
    const gateway = await startGateway();
    // Ten open connections, each carrying one request when the signal comes.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 10 });
    const trades = `${gateway.url}/v1/addresses/3P9KR33QyXwfTXv8kKtNGZYtgKk3RXSUk36/trades/WAVES/USDT?limit=1000`;
    await Promise.all(Array.from({ length: 10 }, () => get(trades, agent)));
    const inFlight = Array.from({ length: 10 }, () =>
      get(trades, agent).then(
        (r) => ({ status: r.status, items: (JSON.parse(r.body) as { items: unknown[] }).items.length }),
        (error: unknown) => ({ status: 0, error: String(error) }),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 15));
    const exit = gateway.stop('SIGTERM');
    const results = await Promise.all(inFlight);
    expect(results).toEqual(Array.from({ length: 10 }, () => ({ status: 200, items: 320 })));
    expect(await exit).toBe(0);
    await expect(fetch(`${gateway.url}/health/live`)).rejects.toThrow();
    agent.destroy();
  });
});
