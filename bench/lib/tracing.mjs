/**
 * The tracing scenario (`tracing-sqlite`): what OpenTelemetry tracing costs a request. Side by side, in the
 * same alternating rounds (lib/load.mjs), on one SQLite database: this build with tracing off (no OTEL_*
 * variable: the default), this build with tracing on (exporting over OTLP/HTTP, JSON, to a local collector
 * that discards, lib/otlp-sink.mjs, pinned with the load generator to core 1), and, with `--baseline-build
 * DIR`, the build of DIR ("today": a build without tracing). Two requests: a public read
 * (`GET /v1/platforms/ETH`) and a signed-in read (`GET /v1/movements/{id}`, one stored document). The goal:
 * tracing off within 1% of today's CPU per request.
 */
import path from 'node:path';
import { BENCH, freePort, startService } from './common.mjs';

/** The standard variables that could turn tracing on, cleared: the gateway's default, tracing off. */
export const TRACING_OFF = {
  OTEL_SDK_DISABLED: '',
  OTEL_TRACES_EXPORTER: '',
  OTEL_EXPORTER_OTLP_ENDPOINT: '',
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
  OTEL_EXPORTER_OTLP_PROTOCOL: '',
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: '',
};

/** The goal: tracing off costs within this fraction of today's CPU per request. */
export const OFF_VS_TODAY = 0.01;

/**
 * Runs the scenario. `gateway`: this build's gateway, already up with tracing off (and signed in:
 * `gateway.token`); `baseline`: the baseline build's, or null, and its label; `launch(env)`: starts another gateway of this
 * build on the same database; `loadSideBySide`, `signIn`, `record`, `log`: the runner's.
 */
export async function measureTracing({
  store,
  env,
  gateway,
  baseline,
  baselineLabel,
  items,
  seed,
  launch,
  loadSideBySide,
  signIn,
  record,
  versusBaseline,
  formatVersus,
  results,
  log,
}) {
  const port = await freePort();
  const sink = await startService('otlp sink', [path.join(BENCH, 'lib/otlp-sink.mjs'), String(port)], {
    port,
    core: 1,
  });
  let traced = null;
  try {
    traced = await launch({ ...env, ...TRACING_OFF, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` });
    traced.token = await signIn(traced, seed);
    log(`[${store}] gateway with tracing on at ${traced.url} (pid ${traced.pid}), exporting to ${sink.url}`);
    for (const item of items) {
      const id = `tracing-${item.kind}-${store}`;
      const label = `${item.label}, tracing`;
      const targets = [gateway, traced, ...(baseline ? [baseline] : [])];
      const [off, on, today] = await loadSideBySide(targets, item);
      record(id, label, 'tracing', 'tracing off', off);
      record(id, label, 'tracing', 'tracing on', on);
      const entry = results.scenarios[id];
      entry.onVsOff = versusBaseline(on, off);
      log(`  ${id.padEnd(26)} on vs off: ${formatVersus(entry.onVsOff)}`);
      if (today) {
        record(id, label, 'tracing', 'today', today);
        entry.offVsToday = versusBaseline(off, today);
        entry.today = baselineLabel;
        log(`  ${id.padEnd(26)} off vs today (${baselineLabel}): ${formatVersus(entry.offVsToday)}`);
      }
    }
  } finally {
    if (traced) await traced.stop();
    await sink.stop();
    const exported = /\{"posts".*\}/.exec(sink.log())?.[0];
    if (exported) {
      results.tracingExport = JSON.parse(exported);
      log(`  otlp sink received ${exported}`);
    }
  }
}

/** The table's rows of a tracing entry: off (against today: the goal), on (against off), today. */
export function tracingRows(s, pick) {
  const m = s.measurements;
  const rows = [];
  const cpu = (versus) => (versus?.cpu.differencePercent == null ? null : versus.cpu.differencePercent / 100);
  if (m['tracing off']) {
    const off = cpu(s.offVsToday);
    rows.push({
      scenario: s.label,
      id: s.id,
      target: 'tracing off',
      ...pick(m['tracing off']),
      checks: s.offVsToday
        ? [
            {
              value: off,
              pass: off === null ? null : off <= OFF_VS_TODAY,
              text: `CPU vs today (${s.today}) (<=+${OFF_VS_TODAY * 100}%)`,
              percent: true,
            },
            {
              value: s.offVsToday.cpu.pairedPercent.median / 100,
              pass: null,
              text: 'round by round (median)',
              percent: true,
            },
          ]
        : [{ value: null, pass: null, text: 'no --baseline-build: nothing to compare with' }],
    });
  }
  if (m['tracing on']) {
    rows.push({
      scenario: '',
      id: s.id,
      target: 'tracing on',
      ...pick(m['tracing on']),
      checks: [{ value: cpu(s.onVsOff), pass: null, text: 'CPU vs off', percent: true }],
    });
  }
  if (m.today) rows.push({ scenario: '', id: s.id, target: `today (${s.today})`, ...pick(m.today), checks: [] });
  return rows;
}
