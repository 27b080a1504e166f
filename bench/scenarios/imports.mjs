/**
 * Feed imports (`import-*`, `import-stdin-*`): `gateway movements import` of one generated file into a fresh
 * database, beside the storage's floor, the database driver alone writing the same rows (lib/import-floor.mjs).
 */
import path from 'node:path';
import { fmt, log, results, TARGETS, tmpRoot } from '../context.mjs';
import { gatewayEnv, prepareDatabase } from '../gateway.mjs';
import { BENCH, CLI, ROOT } from '../lib/common.mjs';
import { runTimed } from '../lib/feeds.mjs';
import { check, ratio } from '../rows.mjs';
import { freshDatabase, machineAfter, machineBefore, storedMovements } from './feed-setup.mjs';

/**
 * `gateway movements import FILE` (or `cat FILE | gateway movements import -`) into a fresh database
 * (migrated, demo catalogue), pinned to core 0: records a second over the command's wall time (start to
 * exit: the file's check pass and the writes), its CPU time and peak RSS; the count stored must equal the
 * file's lines.
 */
export async function measureImport(store, id, source, viaStdin) {
  const { url, dataDir } = await freshDatabase(store, id);
  const env = gatewayEnv(url, dataDir);
  await prepareDatabase(store, env, false);
  const before = await machineBefore();
  log(
    `  ${id.padEnd(18)} ${viaStdin ? 'cat FILE | gateway movements import -' : 'gateway movements import FILE'} (${source.lines.toLocaleString('en')} lines) …`,
  );
  const run = await runTimed([CLI, 'movements', 'import', viaStdin ? '-' : source.file], {
    core: 0,
    env,
    cwd: ROOT,
    stdinFile: viaStdin ? source.file : null,
    usageFile: path.join(tmpRoot, `${id}.usage.json`),
  });
  const machine = machineAfter(before);
  const stored = await storedMovements(env);
  const measurement = {
    rps: source.lines / run.wallSeconds,
    lines: source.lines,
    stored,
    countOk: stored === source.lines,
    wallSeconds: run.wallSeconds,
    cpuSeconds: run.cpuSeconds,
    userSeconds: run.userSeconds,
    systemSeconds: run.systemSeconds,
    cpuUsPerRecord: run.cpuSeconds === null ? null : (run.cpuSeconds * 1e6) / source.lines,
    peakRssMiB: run.peakRssMiB,
    report: run.stdout,
    ...machine,
  };
  log(
    `  ${id.padEnd(18)} ${fmt(measurement.rps)} records/s, ${fmt(run.wallSeconds, 1)} s wall, CPU ${fmt(run.cpuSeconds, 1)} s, peak RSS ${fmt(run.peakRssMiB, 1)} MB, stored ${fmt(stored)} of ${fmt(source.lines)}` +
      `; machine ${fmt((machine.machineBusyDuring ?? 0) * 100)}% busy during it, load ${fmt(machine.loadAvg1After, 2)}` +
      (measurement.countOk ? '' : '  !! count differs'),
  );
  const label = viaStdin ? `cat FILE | movements import - (${store})` : `gateway movements import FILE (${store})`;
  const measurements = { gateway: measurement };
  // Beside the file import, its baseline: the driver alone writing the same rows (lib/import-floor.mjs).
  if (!viaStdin) measurements.floor = await measureImportFloor(store, id, source);
  results.scenarios[id] = { id, label, kind: 'import', store, measurements };
}

/** The CLI's default `--batch-size` for a file (server/src/cli.ts), given to the floor too. */
export const IMPORT_BATCH = 5000;

/**
 * The storage's floor for an import: the same file written into another fresh database of the same schema
 * by the database driver alone (no checks; the gateway's statements and batch size), pinned like the CLI.
 */
export async function measureImportFloor(store, id, source) {
  const { url, dataDir } = await freshDatabase(store, `${id}-floor`);
  const env = gatewayEnv(url, dataDir);
  await prepareDatabase(store, env, false);
  const before = await machineBefore();
  const run = await runTimed([path.join(BENCH, 'lib/import-floor.mjs'), url, source.file, String(IMPORT_BATCH)], {
    core: 0,
    env,
    cwd: ROOT,
    usageFile: path.join(tmpRoot, `${id}-floor.usage.json`),
  });
  const machine = machineAfter(before);
  const stored = await storedMovements(env);
  const floor = {
    rps: source.lines / run.wallSeconds,
    lines: source.lines,
    stored,
    wallSeconds: run.wallSeconds,
    cpuSeconds: run.cpuSeconds,
    cpuUsPerRecord: run.cpuSeconds === null ? null : (run.cpuSeconds * 1e6) / source.lines,
    peakRssMiB: run.peakRssMiB,
    ...machine,
  };
  log(
    `  ${`${id} floor`.padEnd(18)} driver alone: ${fmt(floor.rps)} records/s, ${fmt(run.wallSeconds, 1)} s wall, CPU ${fmt(run.cpuSeconds, 1)} s, stored ${fmt(stored)}` +
      `; machine ${fmt((machine.machineBusyDuring ?? 0) * 100)}% busy during it`,
  );
  return floor;
}

/** An import's row (records a second in the req/s column, the CLI's peak RSS, CPU µs per record) and its floor's. */
export function importRows(s) {
  const rows = [];
  const m = s.measurements;
  // Feed imports: records a second in the req/s column, the CLI's peak RSS, CPU µs per record.
  if (s.kind === 'import' && m.gateway) {
    const g = m.gateway;
    // The floor measured beside it, or (`cat FILE | … import -`, which has none) the file import's of the run.
    const floor = m.floor ?? results.scenarios[`import-${s.store}`]?.measurements.floor ?? null;
    const share = TARGETS.importVsFloor[s.store];
    const perSecond = TARGETS.importPerSecond[s.store];
    const goal =
      share !== undefined
        ? check(ratio(g.rps, floor?.rps), (v) => v >= share, `x floor (>=${share})`)
        : check(g.rps, (v) => v >= perSecond, `records/s (>=${perSecond})`);
    rows.push({
      scenario: s.label,
      id: s.id,
      target: 'gateway CLI',
      rps: g.rps,
      p50: null,
      p99: null,
      rss: g.peakRssMiB,
      cpu: g.cpuUsPerRecord,
      background: g.backgroundCpu,
      checks: [
        goal,
        { ...check(g.stored, (v) => v === g.lines, `stored of ${fmt(g.lines)} lines`), digits: 0 },
        { value: g.wallSeconds, pass: null, text: 's wall', digits: 1 },
        { value: g.cpuSeconds, pass: null, text: 's CPU', digits: 1 },
        { value: g.machineBusyDuring, pass: null, text: 'machine busy', percent: true },
        { value: g.loadAvg1After, pass: null, text: 'load', digits: 2 },
      ],
    });
    if (m.floor) {
      rows.push({
        scenario: '',
        id: s.id,
        target: 'driver alone',
        rps: m.floor.rps,
        p50: null,
        p99: null,
        rss: m.floor.peakRssMiB,
        cpu: m.floor.cpuUsPerRecord,
        checks: [
          {
            ...check(m.floor.stored, (v) => v === m.floor.lines, `stored of ${fmt(m.floor.lines)} lines`),
            digits: 0,
          },
          { value: m.floor.wallSeconds, pass: null, text: 's wall', digits: 1 },
          { value: ratio(g.rps, m.floor.rps), pass: null, text: 'gateway ÷ floor', digits: 2 },
          { value: m.floor.machineBusyDuring, pass: null, text: 'machine busy', percent: true },
        ],
      });
    }
  }
  return rows;
}
