/**
 * The sign-in storm (`storm-pg`, `--only storm`): N accounts never seen before (fresh keys) sign in as fast
 * as they can against two gateway instances of one build on one PostgreSQL database, the load spread over
 * both (lib/storm-load.mjs, core 1; both gateways on core 0, as every server of the run). Reported: grants a
 * second, p50 and p99, and the servers' CPU per grant (both processes), beside the crypto ceiling measured
 * in the same round on the same passwords (lib/crypto-rate.mjs, core 0): a grant's one verification of a
 * key not seen before (its conversion and subgroup check included) and one signing. Then the same accounts
 * sign in once more ("again": known accounts, keys cached), beside the warm ceiling. With --baseline-build
 * the baseline build's pair of gateways, on a database of its own, storms in the same rounds (fresh
 * accounts every time, the order of the builds reversed every other round).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import {
  ADMIN_PG_URL,
  BASELINE,
  cleanups,
  fmt,
  log,
  results,
  SETTINGS,
  selected,
  THIS_BUILD,
  tmpRoot,
} from '../context.mjs';
import { gatewayEnv, launchGateway, prepareDatabase, stopAll } from '../gateway.mjs';
import { BENCH, backgroundBusy, median, runNode } from '../lib/common.mjs';
import { check, ratio } from '../rows.mjs';
import { cryptoCeiling, meanVerification } from './tokens.mjs';

const require = createRequire(import.meta.url);
export const STORM_ID = 'storm-pg';

/** A database of its own on the run's PostgreSQL, dropped at the end; its URL. */
async function createDatabase(name) {
  const pg = require('pg');
  const admin = new pg.Client({ connectionString: ADMIN_PG_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end().catch(() => {});
  }
  cleanups.push(async () => {
    const c = new pg.Client({ connectionString: ADMIN_PG_URL });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.end();
    log(`[storm] dropped database ${name}`);
  });
  const url = new URL(ADMIN_PG_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Two gateways of `build` on a fresh database of their own. */
async function startPair(build, name) {
  const env = gatewayEnv(await createDatabase(name), mkdtempSync(path.join(tmpRoot, 'storm-')));
  await prepareDatabase('pg', env, false, build);
  const pair = [await launchGateway('pg storm 1', env, build), await launchGateway('pg storm 2', env, build)];
  log(`[storm] ${build === THIS_BUILD ? 'gateway' : `baseline ${build.label}`}: ${pair.map((g) => g.url).join(', ')}`);
  return pair;
}

/** One storm: fresh passwords, the crypto ceiling on them (in-process), then the grants against the pair. */
async function storm(pair, label, round) {
  const { accounts, connections } = SETTINGS.storm;
  const file = path.join(tmpRoot, `storm-${label}-${round}.json`);
  const made = Date.now();
  await runNode([
    path.join(BENCH, 'lib/storm-load.mjs'),
    'passwords',
    String(accounts),
    `${SETTINGS.seed} storm ${label} ${round} ${randomBytes(4).toString('hex')}`,
    file,
  ]);
  log(
    `  storm ${label} round ${round + 1}: ${fmt(accounts)} fresh passwords in ${((Date.now() - made) / 1000).toFixed(1)} s`,
  );
  // The ceilings just before the storm and just after the second pass, averaged (as the token rows do): a
  // spell of other work on the shared machine then weighs on both sides of the ratio.
  const rates = () => runNode([path.join(BENCH, 'lib/crypto-rate.mjs'), file, '2'], { core: 0 }).then(JSON.parse);
  const before = await rates();
  const background = await backgroundBusy(
    500,
    pair.map((g) => g.pid),
  );
  const config = path.join(tmpRoot, `storm-${label}-${round}-load.json`);
  writeFileSync(config, JSON.stringify({ targets: pair.map((g) => ({ url: g.url, pid: g.pid })), file, connections }));
  const phase = async (name) => {
    const out = JSON.parse(await runNode([path.join(BENCH, 'lib/storm-load.mjs'), 'load', config], { core: 1 }));
    const cpuUsPerGrant = (out.serverCpuSeconds.reduce((s, v) => s + v, 0) / out.grants) * 1e6;
    log(
      `  storm ${label} round ${round + 1}, ${name}: ${fmt(out.perSecond)} grants/s (${out.perTarget.join(' + ')}), p50 ${fmt(out.p50, 2)} ms, p99 ${fmt(out.p99, 2)} ms, ${fmt(cpuUsPerGrant)} µs CPU a grant` +
        (out.failures ? `  !! ${out.failures} not granted ${JSON.stringify(out.statusCodes)}` : ''),
    );
    return { ...out, cpuUsPerGrant, backgroundCpu: background };
  };
  // The storm (every account new), then the same accounts once more: known accounts, keys cached.
  const cold = await phase('new accounts');
  const warm = await phase('same accounts again');
  const crypto = meanVerification(before, await rates());
  cold.ceiling = cryptoCeiling(crypto, true);
  warm.ceiling = cryptoCeiling(crypto);
  log(
    `  storm ${label} round ${round + 1}: crypto ceiling cold ${fmt(cold.ceiling)}/s, warm ${fmt(warm.ceiling)}/s (verify cold ${fmt(crypto.cold.perSecond)}/s, warm ${fmt(crypto.warm.perSecond)}/s, sign ${fmt(crypto.sign.perSecond)}/s)`,
  );
  return { cold, warm, crypto };
}

/** The storm rounds: this build, and the baseline build beside it when there is one. */
export async function runStorm() {
  if (!selected(STORM_ID)) return;
  const name = `bench_storm_${randomBytes(6).toString('hex')}`;
  const builds = [{ key: 'gateway', build: THIS_BUILD }, ...(BASELINE ? [{ key: 'baseline', build: BASELINE }] : [])];
  const pairs = [];
  try {
    for (const [i, b] of builds.entries()) pairs.push(await startPair(b.build, i ? `${name}_baseline` : name));
    const runs = builds.map(() => []);
    for (let round = 0; round < SETTINGS.storm.rounds; round++) {
      const order = builds.map((_, i) => i);
      if (round % 2) order.reverse();
      for (const i of order) runs[i].push(await storm(pairs[i], builds[i].key, round));
    }
    const entry = {
      id: STORM_ID,
      label: `sign-in storm, ${fmt(SETTINGS.storm.accounts)} new accounts, 2 gateways (pg)`,
      kind: 'storm',
      measurements: {},
    };
    for (const [i, b] of builds.entries()) entry.measurements[b.key] = summarize(runs[i], b.build);
    results.scenarios[STORM_ID] = entry;
  } catch (error) {
    if (/ECONNREFUSED|connect/.test(error.message) && pairs.length === 0) {
      log(`[storm] PostgreSQL unavailable at ${ADMIN_PG_URL} (${error.message}): storm skipped`);
      results.pgSkipped = error.message;
    } else throw error;
  } finally {
    await stopAll(pairs.flat());
  }
}

/** A build's rounds as one, each phase's medians beside the ceilings measured in the same rounds (medians). */
function summarize(rounds, build) {
  const of = (f) => median(rounds.map(f));
  const phase = (key) => ({
    rps: of((r) => r[key].perSecond),
    p50: of((r) => r[key].p50),
    p99: of((r) => r[key].p99),
    cpuUsPerRequest: of((r) => r[key].cpuUsPerGrant),
    ceiling: of((r) => r[key].ceiling),
    failures: rounds.reduce((s, r) => s + r[key].failures, 0),
    backgroundCpu: Math.max(...rounds.map((r) => r[key].backgroundCpu ?? 0)),
  });
  return {
    build: build.label,
    cold: phase('cold'),
    warm: phase('warm'),
    verifyCold: of((r) => r.crypto.cold.perSecond),
    verifyWarm: of((r) => r.crypto.warm.perSecond),
    sign: of((r) => r.crypto.sign.perSecond),
    rounds,
  };
}

/**
 * The storm's rows: each build's grants, new accounts then the same again, each against its crypto ceiling
 * of the same rounds (information, no target), then the ceilings and their parts.
 */
export function stormRows(s) {
  const rows = [];
  for (const [key, m] of Object.entries(s.measurements)) {
    const who = key === 'gateway' ? 'gateway' : m.build;
    for (const [phase, what] of [
      ['cold', 'new'],
      ['warm', 'again'],
    ]) {
      const p = m[phase];
      rows.push({
        scenario: rows.length ? '' : s.label,
        id: s.id,
        target: `${who} x2, ${what}`,
        rps: p.rps,
        p50: p.p50,
        p99: p.p99,
        rss: null,
        cpu: p.cpuUsPerRequest,
        non2xx: p.failures,
        errors: 0,
        background: p.backgroundCpu,
        checks: [
          { ...check(ratio(p.rps, p.ceiling), () => null, `x ${phase} crypto ceiling`), pass: null },
          {
            ...check(ratio(1e6 / p.ceiling, p.cpuUsPerRequest), () => null, 'of the CPU is crypto'),
            pass: null,
            percent: true,
          },
        ],
      });
    }
  }
  const m = s.measurements.gateway;
  if (m) {
    const baseline = (target, rate) => ({ scenario: '', id: s.id, target, rps: rate, checks: [] });
    rows.push(baseline('ceiling, cold key', m.cold.ceiling));
    rows.push(baseline('ceiling, warm key', m.warm.ceiling));
    rows.push(baseline('verify, cold key', m.verifyCold));
    rows.push(baseline('verify, warm key', m.verifyWarm));
    rows.push(baseline('server sign', m.sign));
  }
  return rows;
}
