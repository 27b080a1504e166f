/**
 * Event streams (`events-sqlite`, `events-pg`): thousands of accounts signed in, a stream each, one import of
 * new movements; latency from the import's commit to each event's receipt, and the RSS (lib/events.mjs).
 */
import os from 'node:os';
import { fmt, log, results, SETTINGS, TARGETS, tmpRoot } from '../context.mjs';
import { backgroundBusy } from '../lib/common.mjs';
import { measureEvents } from '../lib/events.mjs';
import { check } from '../rows.mjs';

/** The streams and the import, on a running gateway. */
export async function runEvents(store, gateway, env) {
  const eventsId = `events-${store}`;
  log(
    `  ${eventsId.padEnd(18)} ${fmt(SETTINGS.events.accounts)} streams, ${fmt(SETTINGS.events.movements)} movements …`,
  );
  const background = await backgroundBusy(500, [gateway.pid]);
  const m = await measureEvents(gateway, env, {
    ...SETTINGS.events,
    seed: SETTINGS.seed,
    tmpRoot,
    log,
  });
  m.backgroundCpu = background;
  m.loadAverage = os.loadavg();
  results.scenarios[eventsId] = {
    id: eventsId,
    label: `GET /v1/events, ${fmt(m.streams)} streams (${store})`,
    kind: 'events',
    measurements: { gateway: m },
  };
  log(
    `  ${eventsId.padEnd(18)} delivered ${m.delivered}/${m.movements}, duplicates ${m.duplicates}, wrong account ${m.wrongAccount}; latency from commit p50 ${fmt(m.latencyMs.p50, 1)} ms p99 ${fmt(m.latencyMs.p99, 1)} ms max ${fmt(m.latencyMs.max, 1)} ms; RSS idle ${fmt(m.idleRssMiB, 1)} MB, streams open ${fmt(m.openRssMiB, 1)} MB, peak ${fmt(m.peakRssMiB, 1)} MB; load ${m.loadAverage.map((v) => v.toFixed(2)).join(' ')}`,
  );
}

/** The event-stream row: exactly once, latency, RSS with the streams open. */
export function eventRows(s) {
  const rows = [];
  const m = s.measurements;
  // Event streams: latency from the import's commit to receipt (ms), the RSS with the streams open.
  if (s.kind === 'events' && m.gateway) {
    const e = m.gateway;
    const exact = e.delivered === e.movements && e.duplicates === 0 && e.wrongAccount === 0 && e.unknown === 0;
    rows.push({
      scenario: s.label,
      id: s.id,
      target: 'gateway',
      rps: null,
      p50: e.latencyMs.p50,
      p99: e.latencyMs.p99,
      rss: e.peakRssMiB,
      cpu: null,
      background: e.backgroundCpu,
      checks: [
        {
          value: null,
          pass: exact,
          text: `${e.delivered}/${e.movements} delivered, ${e.duplicates} duplicates, ${e.wrongAccount} wrong account: exactly once`,
        },
        check(e.latencyMs.p99, (v) => v < TARGETS.eventsP99Ms, `p99<${TARGETS.eventsP99Ms}ms`),
        check(e.latencyMs.max, () => null, 'max ms'),
        check(e.openRssMiB, (v) => v < TARGETS.eventsRssMiB, `RSS open<${TARGETS.eventsRssMiB}MB`),
      ],
    });
  }
  return rows;
}
