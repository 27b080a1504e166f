#!/usr/bin/env node
/**
 * A server's stalls at a fixed rate without a database (bench/postgres-floor.md, "Where the stalls come
 * from"; docs/deployment.md, "How far it scales"): lib/canned-reads.mjs's gateway (or floor), with the heap
 * flags `npm start` gives and the one `serve` sets itself, on the cores of `--cores`, paced pages of 100
 * (lib/paced-load.mjs) from this process from the server's first second on, so that V8's first waves of
 * optimization fall in the counted run. Prints the run and each stall over 10 ms: when (s after the
 * server's start), how many requests, the longest.
 *
 *   taskset -c 1 node_modules/.bin/node bench/lib/canned-stalls.mjs [gateway|floor] [--cores 0|0,1]
 *                                         [--rate 2000] [--seconds 15] [--node-args='--v8-pool-size=1']
 *
 * `--cores 0`: the server alone on core 0, its V8 helper threads with it; `0,1`: the second core too, which
 * it shares with this generator. `--node-args`: more Node flags for the server, before those above.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH, freePort, quantile, startService } from './common.mjs';
import { pacedRun } from './paced-load.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    cores: { type: 'string', default: '0' },
    rate: { type: 'string', default: '2000' },
    seconds: { type: 'string', default: '15' },
    'node-args': { type: 'string', default: '' },
  },
});
const mode = positionals[0] ?? 'gateway';
const SLOW_MS = 10;

const port = await freePort();
const out = path.join(mkdtempSync(path.join(os.tmpdir(), 'canned-stalls-')), 'reads.json');
const startedAt = Date.now();
const server = await startService(mode, [path.join(BENCH, 'lib/canned-reads.mjs'), mode, String(port), out], {
  port,
  core: values.cores,
  // npm start's flags, and `serve`'s own --heap-growing-percent=100 (server/src/lib/heap.ts).
  nodeArgs: [
    ...values['node-args'].split(' ').filter(Boolean),
    '--max-old-space-size=160',
    '--max-semi-space-size=16',
    '--heap-growing-percent=100',
  ],
});
try {
  const { token } = JSON.parse(readFileSync(out, 'utf8'));
  const run = await pacedRun({
    url: `${server.url}/v1/movements?limit=100`,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    connections: 10,
    rate: Number(values.rate),
    seconds: Number(values.seconds),
    record: true,
    timeoutMs: 10_000,
    slowMs: SLOW_MS,
  });
  const ms = (v) => (v === null ? '-' : v.toFixed(1));
  console.log(
    `${[mode, values['node-args']].filter(Boolean).join(' ')} on cores ${values.cores}, ${values.rate}/s for ${values.seconds} s: ${run.ok} of ${run.requests} ok, p50 ${ms(quantile(run.latencies, 0.5))} p99 ${ms(quantile(run.latencies, 0.99))} max ${ms(run.latencies.at(-1) ?? null)} ms`,
  );
  for (const stall of run.stalls ?? []) {
    const at = (run.startedAt + stall.atMs - startedAt) / 1000;
    console.log(
      `  stall at ${at.toFixed(1)} s: ${stall.requests} requests over ${SLOW_MS} ms, ${ms(stall.maxMs)} ms at most`,
    );
  }
} finally {
  await server.stop();
}
