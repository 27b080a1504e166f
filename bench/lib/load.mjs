#!/usr/bin/env node
/**
 * The load generator: one autocannon run per round, in its own process so that it can be pinned to its
 * own core (`taskset -c 1 node bench/lib/load.mjs config.json`). A warm-up run first (not counted), then
 * `rounds` counted runs. Latency percentiles are computed from every response's own time (autocannon's
 * histogram has 1 ms resolution). With `serverPid`, each counted round also reports the server process's
 * CPU time per request (user + system, from /proc/<pid>/stat around the round): steadier than req/s on a
 * shared machine, since time the server spends waiting for its core does not count. Prints one JSON object
 * on stdout.
 *
 * config: { url, method?, headers?, body?, bodies?: string[] (cycled, one per request), connections,
 *           warmupSeconds, roundSeconds, rounds, serverPid? }
 */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { quantile } from './common.mjs';

const config = JSON.parse(readFileSync(process.argv[2], 'utf8'));

/** CPU time of a process in µs (Linux clock ticks of 10 ms), or null when it cannot be read. */
function cpuUs(pid) {
  if (!pid) return null;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks * 10_000 : null;
  } catch {
    return null;
  }
}

let next = 0;
const bodies = config.bodies;
const requests = bodies
  ? [
      {
        setupRequest(request) {
          request.body = bodies[next++ % bodies.length];
          return request;
        },
      },
    ]
  : undefined;

function run(seconds, record, amount) {
  const latencies = [];
  const instance = autocannon({
    ...(amount ? { amount } : { duration: seconds }),
    url: config.url,
    method: config.method ?? 'GET',
    headers: config.headers ?? {},
    ...(config.body !== undefined ? { body: config.body } : {}),
    ...(requests ? { requests } : {}),
    connections: config.connections,
    pipelining: 1,
    timeout: 10,
  });
  if (record) {
    instance.on('response', (_client, _status, _bytes, responseTime) => {
      latencies.push(responseTime);
    });
  }
  return instance.then((result) => {
    latencies.sort((a, b) => a - b);
    const total = result.requests.total;
    return {
      seconds: result.duration,
      requests: total,
      rps: total / result.duration,
      ok: result['2xx'],
      non2xx: result.non2xx,
      errors: result.errors,
      timeouts: result.timeouts,
      statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([k, v]) => [k, v.count])),
      p50: quantile(latencies, 0.5),
      p99: quantile(latencies, 0.99),
      mean: latencies.length ? latencies.reduce((s, v) => s + v, 0) / latencies.length : null,
      mbPerSecond: result.throughput.average / 1e6,
    };
  });
}

// Cycled bodies (token grants): every one of them is sent once before anything counts, so that the
// counted rounds see the same (warm) server state whatever the request rate.
if (bodies) await run(0, false, bodies.length);
const warmup = config.warmupSeconds > 0 ? await run(config.warmupSeconds, false) : null;
const rounds = [];
// The counted window on the monotonic clock, in µs: the time base of V8 CPU profiles (--profile).
const windowStart = Number(process.hrtime.bigint() / 1000n);
for (let i = 0; i < config.rounds; i++) {
  const before = cpuUs(config.serverPid);
  const round = await run(config.roundSeconds, true);
  const after = cpuUs(config.serverPid);
  round.serverCpuUsPerRequest = before === null || after === null ? null : (after - before) / round.requests;
  rounds.push(round);
}
const window = { startUs: windowStart, endUs: Number(process.hrtime.bigint() / 1000n) };
process.stdout.write(`${JSON.stringify({ warmup, rounds, window })}\n`);
