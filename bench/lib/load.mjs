#!/usr/bin/env node
/**
 * The load generator: autocannon runs in their own process, so that it can be pinned to its own core
 * (`taskset -c 1 node bench/lib/load.mjs config.json`). The same request goes to every target (the gateway
 * and its baselines, all running at once): a warm-up run against each first (not counted), then `rounds`
 * counted rounds, each one run per target, the order reversed every other round. Side by side round by
 * round, a slow spell of the shared machine falls on every target alike instead of on whichever was
 * measured then. Latency percentiles are computed from every response's own time (autocannon's histogram
 * has 1 ms resolution). With a target's `serverPid`, each of its rounds also reports the server process's
 * CPU time per request (user + system, from /proc/<pid>/stat around the round): steadier than req/s on a
 * shared machine, since time the server spends waiting for its core does not count. Prints one JSON object
 * on stdout: `{ targets: [{ warmup, rounds }], window }`, in the order of `targets`.
 *
 * config: { targets: [{ url, serverPid?, headers? (over the shared ones) }], path, method?, headers?, body?,
 *           bodies?: string[] (cycled, one per request), connections, overallRate? (requests a second),
 *           slowMs? (with overallRate: requests slower than this reported as stalls), warmupSeconds,
 *           roundSeconds, rounds }
 *
 * With `overallRate`, the requests are not autocannon's: they go out evenly spaced, each due at its time
 * whatever became of the ones before it, and one that waits for a busy connection counts that wait in its
 * latency (lib/paced-load.mjs; autocannon's own rate sends a second's share as fast as it can, then waits for
 * the next second).
 */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { quantile } from './common.mjs';
import { pacedRun } from './paced-load.mjs';

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

/** p50, p99 and mean of a run's latencies (ms, sorted; empty when the run was not recorded). */
function summaryOf(latencies) {
  return {
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    mean: latencies.length ? latencies.reduce((s, v) => s + v, 0) / latencies.length : null,
  };
}

/** Requests evenly spaced at `config.overallRate` a second (lib/paced-load.mjs), reported as `run` reports. */
async function paced(target, seconds, record) {
  const result = await pacedRun({
    url: `${target.url}${config.path}`,
    method: config.method ?? 'GET',
    headers: { ...(config.headers ?? {}), ...(target.headers ?? {}) },
    bodyOf: bodies ? () => bodies[next++ % bodies.length] : config.body !== undefined ? () => config.body : undefined,
    connections: config.connections,
    rate: config.overallRate,
    seconds,
    record,
    timeoutMs: 10_000,
    slowMs: config.slowMs,
  });
  return {
    seconds: result.seconds,
    requests: result.requests,
    rps: result.requests / result.seconds,
    ok: result.ok,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes: result.statusCodes,
    ...summaryOf(result.latencies),
    mbPerSecond: result.bytes / result.seconds / 1e6,
    // Found due while every connection was busy: each waited for one, and the wait is in its latency.
    queued: result.queued,
    startedAt: result.startedAt,
    // With `slowMs`: the requests slower than that, due close together, as stalls (when, how many, how long).
    stalls: result.stalls,
  };
}

function run(target, seconds, record, amount) {
  if (config.overallRate && !amount) return paced(target, seconds, record);
  const latencies = [];
  const instance = autocannon({
    ...(amount ? { amount } : { duration: seconds }),
    url: `${target.url}${config.path}`,
    method: config.method ?? 'GET',
    headers: { ...(config.headers ?? {}), ...(target.headers ?? {}) },
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
      ...summaryOf(latencies),
      mbPerSecond: result.throughput.average / 1e6,
    };
  });
}

const targets = config.targets;
// Cycled bodies (token grants): every one of them is sent once before anything counts, so that the
// counted rounds see the same (warm) server state whatever the request rate.
if (bodies) for (const target of targets) await run(target, 0, false, bodies.length);
const results = [];
for (const target of targets) {
  results.push({
    warmup: config.warmupSeconds > 0 ? await run(target, config.warmupSeconds, false) : null,
    rounds: [],
  });
}
// The counted window on the monotonic clock, in µs: the time base of V8 CPU profiles (--profile).
const windowStart = Number(process.hrtime.bigint() / 1000n);
for (let i = 0; i < config.rounds; i++) {
  const order = targets.map((_, index) => index);
  if (i % 2 === 1) order.reverse();
  for (const index of order) {
    const serverPid = targets[index].serverPid;
    const before = cpuUs(serverPid);
    const round = await run(targets[index], config.roundSeconds, true);
    const after = cpuUs(serverPid);
    round.serverCpuUsPerRequest = before === null || after === null ? null : (after - before) / round.requests;
    results[index].rounds.push(round);
  }
}
const window = { startUs: windowStart, endUs: Number(process.hrtime.bigint() / 1000n) };
process.stdout.write(`${JSON.stringify({ targets: results, window })}\n`);
