/** The pieces of the table's rows (bench/report.mjs) shared by the scenario families. */
import { TARGETS } from './context.mjs';

export const ratio = (a, b) => (a && b ? a / b : null);
export const check = (value, ok, text) => ({ value, pass: value === null ? null : ok(value), text });
export const rssCheck = (m) => check(m.peakRssMiB, (v) => v < TARGETS.rssMiB, `RSS<${TARGETS.rssMiB}MB`);

/**
 * The gateway's CPU per request against the baseline build's (difference of the medians): a verdict when
 * the scenario has a target for it (`limit`, a fraction), information otherwise.
 */
export function baselineChecks(s, limit = null) {
  const cpu = s.versusBaseline?.cpu;
  if (!cpu) return [];
  const value = cpu.differencePercent === null ? null : cpu.differencePercent / 100;
  return [
    {
      value,
      pass: limit === null || value === null ? null : value <= limit,
      text: `CPU vs ${s.baseline.label}${limit === null ? '' : ` (<=+${limit * 100}%)`}`,
      percent: true,
    },
  ];
}

export function baselineRows(s) {
  const m = s.measurements.baseline;
  return m ? [{ scenario: '', id: s.id, target: `gateway ${s.baseline.label}`, ...pick(m), checks: [] }] : [];
}

export function pick(m) {
  return {
    rps: m.rps,
    p50: m.p50,
    p99: m.p99,
    rss: m.peakRssMiB,
    cpu: m.cpuUsPerRequest,
    non2xx: m.non2xx,
    errors: m.errors,
    background: m.backgroundCpu,
  };
}
