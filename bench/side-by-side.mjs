/**
 * Load side by side (bench/README.md, "How it measures"): the gateway and its baselines take turns, round by
 * round (lib/load.mjs); the medians of each target, the comparison with a baseline build, and the rows
 * recorded in the results.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fmt, log, options, results, SETTINGS, state, tmpRoot } from './context.mjs';
import { BENCH, backgroundBusy, median, peakRssMiB, resetPeakRss, runNode } from './lib/common.mjs';

/**
 * Runs autocannon (pinned to core 1) against the targets side by side, their rounds alternating (see
 * lib/load.mjs); returns each target's medians over its rounds, in the order of `targets`. A signed-in
 * request (`request.signedIn`) carries each gateway's own access token (`target.token`, from its own
 * sign-in); the bare server is sent the request's default one.
 */
export async function loadSideBySide(targets, request) {
  const config = {
    targets: targets.map((target) => ({
      url: target.url,
      serverPid: target.pid,
      ...(request.signedIn && target.token ? { headers: { authorization: `Bearer ${target.token}` } } : {}),
    })),
    path: request.path,
    method: request.method ?? 'GET',
    headers: request.headers ?? {},
    ...(request.body !== undefined ? { body: request.body } : {}),
    ...(request.bodies ? { bodies: request.bodies } : {}),
    connections: SETTINGS.connections,
    warmupSeconds: SETTINGS.warmupSeconds,
    roundSeconds: SETTINGS.roundSeconds,
    rounds: SETTINGS.rounds,
  };
  const file = path.join(tmpRoot, `load-${++state.loadCounter}.json`);
  writeFileSync(file, JSON.stringify(config));
  const pids = targets.map((target) => target.pid);
  let background = await backgroundBusy(500, pids);
  // --wait-idle S: give other work on the machine (a test run) up to S seconds to finish first.
  const waitUntil = Date.now() + Number(options['wait-idle']) * 1000;
  if (background !== null && background > 0.1 && Date.now() < waitUntil) {
    log(
      `  waiting up to ${options['wait-idle']} s for the machine to be idle (${(background * 100).toFixed(0)}% busy) …`,
    );
    while (background > 0.1 && Date.now() < waitUntil) background = await backgroundBusy(1000, pids);
  }
  if (background !== null && background > 0.1) {
    log(
      `  !! ${(background * 100).toFixed(0)}% of the CPU is busy with other work before this measurement: numbers will be low`,
    );
  }
  for (const pid of pids) resetPeakRss(pid);
  const out = JSON.parse(await runNode([path.join(BENCH, 'lib/load.mjs'), file], { core: 1 }));
  if (options.profile && targets.some((target) => target.profileDir)) state.profileWindow = out.window;
  return out.targets.map(({ warmup, rounds }, index) => {
    const statusCodes = {};
    for (const r of [warmup, ...rounds].filter(Boolean)) {
      for (const [code, count] of Object.entries(r.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + count;
    }
    return {
      rps: median(rounds.map((r) => r.rps)),
      p50: median(rounds.map((r) => r.p50)),
      p99: median(rounds.map((r) => r.p99)),
      cpuUsPerRequest: rounds.every((r) => r.serverCpuUsPerRequest != null)
        ? median(rounds.map((r) => r.serverCpuUsPerRequest))
        : null,
      peakRssMiB: peakRssMiB(pids[index]),
      errors: rounds.reduce((s, r) => s + r.errors + r.timeouts, 0),
      non2xx: [warmup, ...rounds].filter(Boolean).reduce((s, r) => s + r.non2xx, 0),
      statusCodes,
      backgroundCpu: background,
      cpuUsRange: range(rounds.map((r) => r.serverCpuUsPerRequest)),
      rounds: rounds.map(({ rps, p50, p99, requests, seconds, serverCpuUsPerRequest }) => ({
        rps,
        p50,
        p99,
        requests,
        seconds,
        serverCpuUsPerRequest,
      })),
    };
  });
}

/** The lowest and highest of the finite values, or null. */
export function range(values) {
  const finite = values.filter((v) => typeof v === 'number' && Number.isFinite(v));
  return finite.length ? { min: Math.min(...finite), max: Math.max(...finite) } : null;
}

/**
 * The gateway against the baseline build, from the same rounds: each one's CPU µs per request (median,
 * lowest and highest round) and req/s, the difference of the medians, and the differences round by round
 * (round i of both was run back to back, so a slow spell falls on both), their median and range.
 */
export function versusBaseline(gateway, baseline) {
  const percent = (a, b) => (a != null && b ? ((a - b) / b) * 100 : null);
  const paired = (key) =>
    gateway.rounds.map((r, i) => percent(r[key], baseline.rounds[i]?.[key])).filter((v) => v !== null);
  const cpuRounds = paired('serverCpuUsPerRequest');
  const rpsRounds = paired('rps');
  return {
    rounds: gateway.rounds.length,
    cpu: {
      gateway: { median: gateway.cpuUsPerRequest, ...gateway.cpuUsRange },
      baseline: { median: baseline.cpuUsPerRequest, ...baseline.cpuUsRange },
      differencePercent: percent(gateway.cpuUsPerRequest, baseline.cpuUsPerRequest),
      pairedPercent: { median: median(cpuRounds), ...range(cpuRounds), rounds: cpuRounds },
    },
    rps: {
      gateway: gateway.rps,
      baseline: baseline.rps,
      differencePercent: percent(gateway.rps, baseline.rps),
      pairedPercent: { median: median(rpsRounds), ...range(rpsRounds), rounds: rpsRounds },
    },
  };
}

export const signed = (v, digits = 1) =>
  v === null || v === undefined ? '-' : `${v > 0 ? '+' : ''}${v.toFixed(digits)}%`;

/** One line of a comparison with the baseline build (versusBaseline). */
export function formatVersus(v) {
  const { cpu, rps } = v;
  const side = (x) => `${fmt(x.median, 1)} [${fmt(x.min, 1)}–${fmt(x.max, 1)}]`;
  return (
    `CPU µs/req ${side(cpu.gateway)} vs baseline ${side(cpu.baseline)}: ${signed(cpu.differencePercent)}` +
    ` (round by round ${signed(cpu.pairedPercent.median)}, ${signed(cpu.pairedPercent.min)} to ${signed(cpu.pairedPercent.max)});` +
    ` req/s ${fmt(rps.gateway)} vs ${fmt(rps.baseline)}: ${signed(rps.differencePercent)}`
  );
}

/** One target alone (token grants: their limits are measured in-process). */
export const load = async (target, request) => (await loadSideBySide([target], request))[0];

export function record(id, label, kind, target, measurement) {
  results.scenarios[id] ??= { id, label, kind, measurements: {} };
  const entry = results.scenarios[id];
  entry.measurements[target] = measurement;
  const flag =
    measurement.non2xx || measurement.errors
      ? `  !! non-2xx ${measurement.non2xx} errors ${measurement.errors} ${JSON.stringify(measurement.statusCodes)}`
      : '';
  log(
    `  ${id.padEnd(18)} ${target.padEnd(14)} ${fmt(measurement.rps).padStart(8)} req/s  p50 ${fmt(measurement.p50, 2)} ms  p99 ${fmt(measurement.p99, 2)} ms  rss ${fmt(measurement.peakRssMiB, 1)} MB  cpu ${fmt(measurement.cpuUsPerRequest)} µs/req${flag}`,
  );
}
