/**
 * The typed client (`client`): calls through `@gateway/client` against raw `fetch` and openapi-fetch alone,
 * in-process, pinned to core 1 (lib/client-rate.mjs).
 */
import path from 'node:path';
import { fmt, log, results, SETTINGS, TARGETS } from '../context.mjs';
import { BENCH, backgroundBusy, runNode } from '../lib/common.mjs';

/** The typed client against a raw fetch, on a running gateway. */
export async function runClient(gateway) {
  log('  client             typed client vs raw fetch …');
  const clientBackground = await backgroundBusy(500, [gateway.pid]);
  const c = SETTINGS.client;
  const out = JSON.parse(
    await runNode(
      [path.join(BENCH, 'lib/client-rate.mjs'), gateway.url, c.warmup, c.round, c.rounds, '10'].map(String),
      {
        core: 1,
      },
    ),
  );
  results.scenarios.client = {
    backgroundCpu: clientBackground,
    id: 'client',
    label: 'GET /v1/platforms/{id} via typed client',
    kind: 'client',
    measurements: out,
  };
  for (const [k, v] of Object.entries(out)) {
    log(
      `  client ${k.padEnd(4)} raw ${fmt(v.raw.perSecond)} calls/s, openapi-fetch ${fmt(v.library.perSecond)} calls/s, typed ${fmt(v.typed.perSecond)} calls/s`,
    );
  }
}

/** The typed client, raw fetch and openapi-fetch rows, sequential and concurrent. */
export function clientRows(s) {
  const rows = [];
  const m = s.measurements;
  if (s.kind === 'client') {
    for (const [k, v] of Object.entries(m)) {
      const overhead = v.raw.perSecond && v.typed.perSecond ? v.raw.perSecond / v.typed.perSecond - 1 : null;
      const label = k === 'c1' ? 'typed client, sequential' : `typed client, ${k.slice(1)} concurrent`;
      rows.push({
        scenario: label,
        id: `client-${k}`,
        target: 'typed client',
        rps: v.typed.perSecond,
        p50: v.typed.p50,
        p99: v.typed.p99,
        rss: null,
        cpu: v.typed.cpuUsPerCall,
        background: s.backgroundCpu,
        checks: [
          {
            value: overhead,
            pass: overhead === null ? null : overhead <= TARGETS.clientOverhead,
            text: `overhead (<=${TARGETS.clientOverhead * 100}%)`,
            percent: true,
          },
        ],
      });
      rows.push({
        scenario: '',
        id: `client-${k}`,
        target: 'raw fetch',
        rps: v.raw.perSecond,
        p50: v.raw.p50,
        p99: v.raw.p99,
        rss: null,
        cpu: v.raw.cpuUsPerCall,
        checks: [],
      });
      // openapi-fetch alone (results before it had no such row): the library's share of the overhead.
      if (v.library) {
        const libraryOverhead = v.raw.perSecond / v.library.perSecond - 1;
        rows.push({
          scenario: '',
          id: `client-${k}`,
          target: 'openapi-fetch',
          rps: v.library.perSecond,
          p50: v.library.p50,
          p99: v.library.p99,
          rss: null,
          cpu: v.library.cpuUsPerCall,
          checks: [{ value: libraryOverhead, pass: null, text: 'over raw fetch (the library alone)', percent: true }],
        });
      }
    }
  }
  return rows;
}
