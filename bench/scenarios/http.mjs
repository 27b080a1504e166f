/**
 * The HTTP reads measured side by side with their baselines (`public-*`, `signed-in-*`, `movements-*`,
 * `trades-*`, and `tracing-*` through lib/tracing.mjs): one gateway per store, the bare Fastify route serving
 * the same payloads, Prism for public reads, a baseline build when asked. The client, event-stream and token
 * scenarios run on the same gateway (client.mjs, events.mjs, tokens.mjs).
 */
import { ALL_IDS, BASELINE, feedScenario, GROUPS, log, results, selected, sideBySide, TARGETS } from '../context.mjs';
import {
  capture,
  gatewayEnv,
  launchGateway,
  prepareDatabase,
  signIn,
  startBare,
  startPrism,
  stopAll,
  tokenClaims,
} from '../gateway.mjs';
import { measureTracing } from '../lib/tracing.mjs';
import { baselineChecks, baselineRows, check, pick, ratio, rssCheck } from '../rows.mjs';
import { formatVersus, loadSideBySide, record, versusBaseline } from '../side-by-side.mjs';
import { runClient } from './client.mjs';
import { runEvents } from './events.mjs';
import { runTokens } from './tokens.mjs';

export const PUBLIC = [
  { id: 'public-currencies', label: 'GET /v1/deposit/currencies', path: '/v1/deposit/currencies' },
  { id: 'public-currency', label: 'GET /v1/deposit/currencies/USDT/ETH', path: '/v1/deposit/currencies/USDT/ETH' },
  { id: 'public-platform', label: 'GET /v1/platforms/ETH', path: '/v1/platforms/ETH' },
];

/**
 * The signed-in read path: one movement of the signed-in account by id (its newest), a primary-key read of
 * a stored document, so that the request's cost is mostly the gateway's own and the bearer check (after the
 * first request, the access token is found in the verified-token cache).
 */
export const signedInOf = (store, movementId) => [
  {
    id: `signed-in-${store}`,
    label: `GET /v1/movements/{id} (${store})`,
    kind: 'signed-in',
    path: `/v1/movements/${encodeURIComponent(movementId)}`,
    signedIn: true,
  },
];

export const pagesOf = (store, dataset) => [
  {
    id: `movements-${store}`,
    label: `GET /v1/movements?limit=100 (${store})`,
    kind: 'pages',
    path: '/v1/movements?limit=100',
    signedIn: true,
    expect: 100,
  },
  {
    id: `trades-${store}`,
    label: `GET trades WAVES/USDT?limit=1000 (${store})`,
    kind: 'pages',
    path: `/v1/addresses/${dataset?.tradesAddress}/trades/WAVES/USDT?limit=1000`,
    expect: 1000,
  },
];

export async function runStore(store, databaseUrl, dataDir, grants, baselineDatabase = null) {
  const ids = ALL_IDS.filter(
    (id) => selected(id) && !feedScenario(id) && (store === 'pg' ? id.endsWith('-pg') : !id.endsWith('-pg')),
  );
  if (ids.length === 0) return;
  const env = gatewayEnv(databaseUrl, dataDir);
  const withData = ids.some((id) => GROUPS.pages(id) || GROUPS['signed-in'](id) || GROUPS.tracing(id));
  const dataset = await prepareDatabase(store, env, withData);
  let gateway = await launchGateway(store, env);
  log(`[${store}] gateway up at ${gateway.url} (pid ${gateway.pid})`);
  const baselines = [];
  let baseline = null;
  try {
    // The baseline build (--baseline-build), on its own database filled by its own scripts, same seed.
    if (BASELINE && baselineDatabase && ids.some(sideBySide)) {
      const baselineEnv = gatewayEnv(baselineDatabase.url, baselineDatabase.dataDir);
      await prepareDatabase(store, baselineEnv, withData, BASELINE);
      baseline = await launchGateway(store, baselineEnv, BASELINE);
      log(`[${store}] baseline ${BASELINE.label} up at ${baseline.url} (pid ${baseline.pid})`);
    }
    // What each read answers, from the gateway: the bare server serves the same payloads.
    const items = [];
    let signedInRead = null;
    for (const item of PUBLIC.filter((p) => ids.includes(p.id))) {
      items.push({ ...item, kind: 'public', payload: await capture(gateway, item) });
    }
    if (withData) {
      // Each gateway signs the account in itself: its own access token (the form it issues) on its requests.
      gateway.token = await signIn(gateway, dataset.signedInSeed);
      if (baseline) baseline.token = await signIn(baseline, dataset.signedInSeed);
      log(
        `[${store}] access token claims: ${tokenClaims(gateway)}${baseline ? `; baseline: ${tokenClaims(baseline)}` : ''}`,
      );
      const newest = await capture(gateway, {
        path: '/v1/movements?limit=1',
        headers: { authorization: `Bearer ${gateway.token}` },
      });
      const movementId = newest.items?.[0]?.id;
      if (!movementId) throw new Error('the signed-in account has no movement');
      const pages = [...signedInOf(store, movementId), ...pagesOf(store, dataset)];
      signedInRead = { ...pages[0], headers: { authorization: `Bearer ${gateway.token}` } };
      for (const page of pages.filter((p) => ids.includes(p.id))) {
        const item = page.signedIn ? { ...page, headers: { authorization: `Bearer ${gateway.token}` } } : page;
        items.push({ ...item, payload: await capture(gateway, item, item.expect) });
      }
    }
    if (baseline) {
      // The baseline answers the same requests (its own token), or the comparison is not of the same work.
      for (const item of items) {
        const asked = item.signedIn ? { ...item, headers: { authorization: `Bearer ${baseline.token}` } } : item;
        const answer = await capture(baseline, asked, item.expect);
        if (JSON.stringify(answer) !== JSON.stringify(item.payload)) {
          log(`  !! baseline ${BASELINE.label}: ${item.path} answers differently from the gateway`);
          item.baselineDiffers = true;
        }
      }
    }
    // Public reads (SQLite, the embedded default), signed-in reads and pages, each with its baselines side by
    // side: the gateway, the baseline build (if any), the bare route and (public reads) Prism, their rounds
    // alternating.
    if (items.length > 0) {
      const bare = await startBare(items);
      baselines.push(bare);
      const prism = items.some((item) => item.kind === 'public') ? await startPrism() : null;
      if (prism) baselines.push(prism);
      for (const item of items) {
        const withPrism = item.kind === 'public' && prism !== null;
        if (withPrism) await capture(prism, item);
        const targets = [gateway, ...(baseline ? [baseline] : []), bare, ...(withPrism ? [prism] : [])];
        const [onGateway, ...rest] = await loadSideBySide(targets, item);
        const onBaseline = baseline ? rest.shift() : null;
        const [onBare, onPrism] = rest;
        record(item.id, item.label, item.kind, 'gateway', onGateway);
        if (onBaseline) {
          record(item.id, item.label, item.kind, 'baseline', onBaseline);
          const entry = results.scenarios[item.id];
          entry.baseline = { label: BASELINE.label, commit: BASELINE.commit, root: BASELINE.root };
          if (item.baselineDiffers) entry.baseline.answersDiffer = true;
          entry.versusBaseline = versusBaseline(onGateway, onBaseline);
          log(`  ${item.id.padEnd(18)} ${formatVersus(entry.versusBaseline)}`);
        }
        record(item.id, item.label, item.kind, 'bare', onBare);
        if (onPrism) record(item.id, item.label, item.kind, 'prism', onPrism);
      }
      await stopAll(baselines.splice(0));
    }
    // Tracing off, on, and today (the baseline build): a public read and a signed-in read (lib/tracing.mjs).
    if (ids.includes(`tracing-${store}`)) {
      await measureTracing({
        store,
        env,
        gateway,
        baseline,
        baselineLabel: BASELINE?.label,
        items: [{ ...PUBLIC.find((p) => p.id === 'public-platform'), kind: 'public' }, signedInRead],
        seed: dataset.signedInSeed,
        launch: (tracedEnv) => launchGateway(store, tracedEnv),
        loadSideBySide,
        signIn,
        record,
        versusBaseline,
        formatVersus,
        results,
        log,
      });
    }
    if (baseline) {
      await baseline.stop();
      baseline = null;
    }
    // The typed client against a raw fetch (in-process, pinned to core 1).
    if (ids.includes('client')) await runClient(gateway);
    // Event streams: thousands of accounts signed in, a stream each, one import of new movements.
    if (ids.includes(`events-${store}`)) await runEvents(store, gateway, env);
    if (!alive(gateway.pid) || (ids.includes(`events-${store}`) && ids.includes(`tokens-${store}`))) {
      // The scenarios after the event streams get a gateway of their own: one that died (the streams can
      // exhaust its heap: their row says so) would leave a closed port, and one that lived has held 5,000
      // streams (its memory, about 235 MB of RSS, is not returned at once: not what the grants cost).
      log(
        alive(gateway.pid)
          ? `[${store}] a new gateway for the token grants (the event streams' one held 5,000 streams)`
          : `[${store}] !! the gateway (pid ${gateway.pid}) exited: starting another for the scenarios left`,
      );
      await gateway.stop();
      gateway = await launchGateway(store, env);
      log(`[${store}] gateway up at ${gateway.url} (pid ${gateway.pid})`);
    }
    // Token grants last (they write token families and refresh tokens).
    if (ids.includes(`tokens-${store}`)) await runTokens(store, gateway, grants, databaseUrl, dataDir);
  } finally {
    await stopAll(baselines);
    if (baseline) await baseline.stop();
    await gateway.stop();
  }
}

/** Whether the process `pid` is still running. */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A public read: the gateway against the bare route and Prism. */
export function publicRows(s) {
  const rows = [];
  const m = s.measurements;
  if (s.kind === 'public' && m.gateway) {
    rows.push({
      scenario: s.label,
      id: s.id,
      target: 'gateway',
      ...pick(m.gateway),
      checks: [
        ...baselineChecks(s),
        check(
          ratio(m.gateway.rps, m.bare?.rps),
          (v) => v >= TARGETS.publicVsBare,
          `x bare (>=${TARGETS.publicVsBare})`,
        ),
        check(
          ratio(m.gateway.rps, m.prism?.rps),
          (v) => v >= TARGETS.publicVsPrism,
          `x prism (>=${TARGETS.publicVsPrism})`,
        ),
        rssCheck(m.gateway),
      ],
    });
    rows.push(...baselineRows(s));
    if (m.bare) rows.push({ scenario: '', id: s.id, target: 'bare fastify', ...pick(m.bare), checks: [] });
    if (m.prism) rows.push({ scenario: '', id: s.id, target: 'prism mock', ...pick(m.prism), checks: [] });
  }
  return rows;
}

/** A page of movements or trades: the gateway against the bare route, its p99. */
export function pageRows(s) {
  const rows = [];
  const m = s.measurements;
  if (s.kind === 'pages' && m.gateway) {
    rows.push({
      scenario: s.label,
      id: s.id,
      target: 'gateway',
      ...pick(m.gateway),
      checks: [
        check(ratio(m.gateway.rps, m.bare?.rps), (v) => v >= TARGETS.pagesVsBare, `x bare (>=${TARGETS.pagesVsBare})`),
        check(m.gateway.p99, (v) => v < TARGETS.pagesP99Ms, `p99<${TARGETS.pagesP99Ms}ms`),
        rssCheck(m.gateway),
        ...baselineChecks(s),
      ],
    });
    rows.push(...baselineRows(s));
    if (m.bare) rows.push({ scenario: '', id: s.id, target: 'bare fastify', ...pick(m.bare), checks: [] });
  }
  return rows;
}

/** The signed-in read: its CPU per request against the baseline build's (when one ran beside it); the
 * bare route serving the same document from memory for reference. */
export function signedInRows(s) {
  const rows = [];
  const m = s.measurements;
  // The signed-in read: its CPU per request against the baseline build's (when one ran beside it); the
  // bare route serving the same document from memory for reference.
  if (s.kind === 'signed-in' && m.gateway) {
    rows.push({
      scenario: s.label,
      id: s.id,
      target: 'gateway',
      ...pick(m.gateway),
      checks: [
        check(ratio(m.gateway.rps, m.bare?.rps), () => null, 'x bare'),
        rssCheck(m.gateway),
        ...baselineChecks(s, TARGETS.signedInCpuVsBaseline),
      ],
    });
    rows.push(...baselineRows(s));
    if (m.bare) rows.push({ scenario: '', id: s.id, target: 'bare fastify', ...pick(m.bare), checks: [] });
  }
  return rows;
}
