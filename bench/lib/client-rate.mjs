#!/usr/bin/env node
import { createGatewayClient } from '@gateway/client';
/**
 * The typed client's overhead: GET /v1/platforms/{id} through `createGatewayClient(...).api.GET` against a
 * raw `fetch` of the same request (all parse the JSON), as calls per second and as the client process's CPU
 * time per call, sequential and with `concurrency` calls in flight. A third mode, openapi-fetch alone (the
 * library the typed client is built on, without the client's session middleware), tells the library's own
 * cost from the client's. Rounds take the modes in turn, the order reversed every other round; medians are
 * reported.
 *
 *   node bench/lib/client-rate.mjs BASE_URL WARMUP_SECONDS ROUND_SECONDS ROUNDS [CONCURRENCY]
 */
import createClient from 'openapi-fetch';
import { median, quantile } from './common.mjs';

const [baseUrl, warmupText, roundText, roundsText, concurrencyText = '10'] = process.argv.slice(2);
const warmupSeconds = Number(warmupText);
const roundSeconds = Number(roundText);
const rounds = Number(roundsText);
const concurrencies = [1, Number(concurrencyText)];

const client = createGatewayClient({ baseUrl, chainId: 'W', clientId: 'waves.exchange' });
const library = createClient({ baseUrl });
const url = `${baseUrl}/v1/platforms/ETH`;

const calls = {
  async raw() {
    const response = await fetch(url);
    const body = await response.json();
    if (response.status !== 200 || body.id !== 'ETH') throw new Error(`raw fetch: ${response.status}`);
  },
  async library() {
    const { data, response } = await library.GET('/v1/platforms/{id}', { params: { path: { id: 'ETH' } } });
    if (response.status !== 200 || data?.id !== 'ETH') throw new Error(`openapi-fetch: ${response.status}`);
  },
  async typed() {
    const { data, response } = await client.api.GET('/v1/platforms/{id}', { params: { path: { id: 'ETH' } } });
    if (response.status !== 200 || data?.id !== 'ETH') throw new Error(`typed client: ${response.status}`);
  },
};

async function measure(call, seconds, concurrency) {
  const deadline = performance.now() + seconds * 1000;
  const latencies = [];
  const started = performance.now();
  const worker = async () => {
    while (performance.now() < deadline) {
      const t = performance.now();
      await call();
      latencies.push(performance.now() - t);
    }
  };
  const cpuBefore = process.cpuUsage();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const cpu = process.cpuUsage(cpuBefore);
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    calls: latencies.length,
    perSecond: latencies.length / elapsed,
    // The calling process's CPU time per call (user + system): what the client itself costs.
    cpuUsPerCall: (cpu.user + cpu.system) / latencies.length,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
  };
}

const result = {};
for (const concurrency of concurrencies) {
  const modes = Object.keys(calls);
  for (const mode of modes) await measure(calls[mode], warmupSeconds, concurrency);
  const runs = Object.fromEntries(modes.map((mode) => [mode, []]));
  for (let i = 0; i < rounds; i++) {
    for (const mode of i % 2 ? [...modes].reverse() : modes)
      runs[mode].push(await measure(calls[mode], roundSeconds, concurrency));
  }
  const summary = (list) => ({
    perSecond: median(list.map((r) => r.perSecond)),
    p50: median(list.map((r) => r.p50)),
    p99: median(list.map((r) => r.p99)),
    cpuUsPerCall: median(list.map((r) => r.cpuUsPerCall)),
    rounds: list,
  });
  result[`c${concurrency}`] = Object.fromEntries(modes.map((mode) => [mode, summary(runs[mode])]));
}
process.stdout.write(`${JSON.stringify(result)}\n`);
