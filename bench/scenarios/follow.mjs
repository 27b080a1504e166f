/**
 * `import - --follow` (`follow-*`): a stream of movement lines into the importer while the gateway serves,
 * each timed from its write to the first answer that has it (lib/feeds.mjs).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { addressOfPublicKey, signerFromSeed } from '@gateway/client';
import { CHAIN_ID, fmt, log, results, SETTINGS, TARGETS, tmpRoot } from '../context.mjs';
import { feedLines, movementRows } from '../data.mjs';
import { gatewayEnv, launchGateway, prepareDatabase, signIn } from '../gateway.mjs';
import { CLI, peakRssMiB, ROOT } from '../lib/common.mjs';
import { followLatency, USAGE_PRELOAD } from '../lib/feeds.mjs';
import { check } from '../rows.mjs';
import { freshDatabase, machineAfter, machineBefore, storedMovements } from './feed-setup.mjs';

/**
 * `gateway serve` and `gateway movements import - --follow` (default batch settings) on one fresh database;
 * movement lines of a few signed-in accounts written to the importer's standard input at a steady rate,
 * each timed from its write to the first `GET /v1/movements/{id}` answering 200 (lib/feeds.mjs).
 */
export async function measureFollow(store, id) {
  const { url, dataDir } = await freshDatabase(store, id);
  const env = gatewayEnv(url, dataDir);
  await prepareDatabase(store, env, false);
  const gateway = await launchGateway(store, env);
  let importer = null;
  try {
    const { rate, seconds, accounts: accountCount, pollers, pollGapMs } = SETTINGS.follow;
    const tokens = new Map();
    const addresses = [];
    for (let k = 0; k < accountCount; k++) {
      const seed = `${SETTINGS.seed} follow account ${k}`;
      const address = addressOfPublicKey(signerFromSeed(seed).publicKey, CHAIN_ID);
      addresses.push(address);
      tokens.set(address, await signIn(gateway, seed));
    }
    // The data set's generator over these accounts only (no "hot" account: the first entry is never used).
    const count = rate * seconds + 1;
    const lines = [...movementRows(`${SETTINGS.seed}/follow`, [addresses[0], ...addresses], count, 0)].map((row) => ({
      id: row[0],
      token: tokens.get(row[1]),
      line: feedLines([row]).next().value,
    }));
    const usageFile = path.join(tmpRoot, `${id}.usage.json`);
    importer = spawn(process.execPath, ['--require', USAGE_PRELOAD, CLI, 'movements', 'import', '-', '--follow'], {
      cwd: ROOT,
      env: { ...process.env, ...env, BENCH_USAGE_FILE: usageFile },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let importerOut = '';
    let importerErr = '';
    importer.stdout.on('data', (c) => {
      importerOut += c;
    });
    importer.stderr.on('data', (c) => {
      importerErr = (importerErr + c).slice(-5000);
    });
    const exited = new Promise((resolve) => importer.once('exit', (code, signal) => resolve(code ?? signal)));
    // Warm-up: the first line, once the importer has opened the database, answered before timing starts.
    const [first, ...timed] = lines;
    const warm = await followLatency({
      url: gateway.url,
      stdin: importer.stdin,
      lines: [first],
      rate: 1000,
      settleMs: 30_000,
    });
    if (warm.delivered !== 1) throw new Error(`${id}: the warm-up line was not answered in 30 s:\n${importerErr}`);
    const before = await machineBefore();
    log(
      `  ${id.padEnd(18)} ${fmt(timed.length)} lines at ${rate}/s over ${accountCount} accounts, ${pollers} pollers …`,
    );
    const latency = await followLatency({
      url: gateway.url,
      stdin: importer.stdin,
      lines: timed,
      rate,
      pollers,
      pollGapMs,
    });
    const machine = machineAfter(before);
    const serverRss = peakRssMiB(gateway.pid);
    const importerRss = peakRssMiB(importer.pid);
    importer.stdin.end();
    const code = await exited;
    importer = null;
    let usage = null;
    try {
      usage = JSON.parse(readFileSync(usageFile, 'utf8'));
    } catch {}
    const cpuSeconds = usage ? (usage.userUs + usage.systemUs) / 1e6 : null;
    const stored = await storedMovements(env);
    const measurement = {
      ...latency,
      rps: latency.delivered / latency.writeSeconds,
      warmUpMs: warm.max,
      importerExit: code,
      importerReport: importerOut.trim(),
      importerPeakRssMiB: usage ? Math.round((usage.maxRssKiB / 1024) * 10) / 10 : importerRss,
      importerCpuSeconds: cpuSeconds,
      cpuUsPerRecord: cpuSeconds === null ? null : (cpuSeconds * 1e6) / lines.length,
      serverPeakRssMiB: serverRss,
      stored,
      ...machine,
    };
    log(
      `  ${id.padEnd(18)} ${fmt(latency.delivered)} of ${fmt(latency.lines)} answered: p50 ${fmt(latency.p50, 1)} ms, p99 ${fmt(latency.p99, 1)} ms, max ${fmt(latency.max, 1)} ms (${fmt(latency.requests)} polls ${JSON.stringify(latency.statuses)}); importer exit ${code}, stored ${fmt(stored)}` +
        `; machine ${fmt((machine.machineBusyDuring ?? 0) * 100)}% busy during it, load ${fmt(machine.loadAvg1After, 2)}`,
    );
    results.scenarios[id] = {
      id,
      label: `import - --follow: write → GET 200 (${store})`,
      kind: 'follow',
      store,
      measurements: { gateway: measurement },
    };
  } finally {
    if (importer) importer.kill('SIGKILL');
    await gateway.stop();
  }
}

/** The --follow row: lines answered a second, the latencies write → 200, the importer's RSS and CPU. */
export function followRows(s) {
  const rows = [];
  const m = s.measurements;
  // --follow: lines answered a second in the req/s column, the latencies write → 200, the importer's RSS and CPU.
  if (s.kind === 'follow' && m.gateway) {
    const g = m.gateway;
    rows.push({
      scenario: s.label,
      id: s.id,
      target: 'import --follow',
      rps: g.rps,
      p50: g.p50,
      p99: g.p99,
      rss: g.importerPeakRssMiB,
      cpu: g.cpuUsPerRecord,
      background: g.backgroundCpu,
      checks: [
        { ...check(g.p99, (v) => v < TARGETS.followP99Ms, `p99<${TARGETS.followP99Ms}ms`), digits: 1 },
        { value: g.max, pass: null, text: 'ms max', digits: 1 },
        { ...check(g.delivered, (v) => v === g.lines, `answered of ${fmt(g.lines)}`), digits: 0 },
        { value: g.machineBusyDuring, pass: null, text: 'machine busy', percent: true },
        { value: g.loadAvg1After, pass: null, text: 'load', digits: 2 },
      ],
    });
  }
  return rows;
}
