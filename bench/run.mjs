#!/usr/bin/env node
/**
 * `npm run bench`: the gateway's throughput and latency against its baselines, measured in the same run.
 * See bench/README.md. Loopback only; the server and its baseline servers pinned to core 0, the load
 * generator (autocannon, its own process) to core 1; warm-up, then rounds alternating between the gateway
 * and its baselines, medians.
 *
 *   node bench/run.mjs [--quick] [--only IDS] [--skip-pg] [--profile ID] [--connections N] [--wait-idle S]
 *                      [--seed TEXT] [--rounds N] [--round-seconds S] [--warmup-seconds S]
 *                      [--baseline-build DIR [--baseline-label TEXT]]
 *
 * IDS: comma-separated scenario ids or groups (public, pages, signed-in, tokens, client, import, follow, tracing, sqlite,
 * pg), e.g. `--only tokens-sqlite,client` or `--only import,follow` (the feed imports: the CLI on fresh
 * databases, see runFeeds). --profile ID runs that scenario alone with the server under
 * `node --cpu-prof` and prints its top self-time functions. --baseline-build DIR: a second gateway, built
 * in another checkout DIR (its server/dist/cli.js, on its own database prepared by its own CLI and data
 * script), joins the gateway's side-by-side rounds in every HTTP scenario (public, pages, signed-in): the
 * same requests, its own sign-in; the run reports both and the difference in CPU per request.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { addressOfPublicKey, passwordFor, signerFromSeed } from '@gateway/client';
import { feedLines, movementRows } from './data.mjs';
import {
  BENCH,
  BUNDLED_SPEC,
  backgroundBusy,
  CLI,
  canPin,
  cpuTimes,
  freePort,
  isFile,
  median,
  PRISM_CLI,
  peakRssMiB,
  ROOT,
  resetPeakRss,
  runNode,
  startService,
} from './lib/common.mjs';
import { measureEvents } from './lib/events.mjs';
import { followLatency, movementsFile, runTimed, USAGE_PRELOAD } from './lib/feeds.mjs';
import { formatSummary, summarizeProfile } from './lib/profile-summary.mjs';
import { measureTracing, TRACING_OFF, tracingRows } from './lib/tracing.mjs';

const require = createRequire(import.meta.url);
const startedAt = Date.now();

/* ------------------------------------------------------------------ options */

const { values: options } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    'skip-pg': { type: 'boolean', default: false },
    profile: { type: 'string' },
    connections: { type: 'string', default: '10' },
    'wait-idle': { type: 'string', default: '0' },
    // The server runs as `npm start` runs it (see docs/deployment.md: the heap cap keeps RSS bounded).
    'server-node-args': { type: 'string', default: '--max-old-space-size=160' },
    seed: { type: 'string', default: 'exchange-gateway-bench-v1' },
    rounds: { type: 'string' },
    'round-seconds': { type: 'string' },
    'warmup-seconds': { type: 'string' },
    'baseline-build': { type: 'string' },
    'baseline-label': { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (options.help) {
  console.log(
    'usage: node bench/run.mjs [--quick] [--only IDS] [--skip-pg] [--profile ID] [--connections N] [--seed TEXT]\n' +
      '                          [--rounds N] [--round-seconds S] [--warmup-seconds S] [--baseline-build DIR [--baseline-label TEXT]]',
  );
  process.exit(0);
}

const QUICK = options.quick;
const SETTINGS = {
  mode: QUICK ? 'quick' : 'full',
  connections: Number(options.connections),
  warmupSeconds: Number(options['warmup-seconds'] ?? (QUICK ? 1 : 3)),
  roundSeconds: Number(options['round-seconds'] ?? (QUICK ? 2 : 6)),
  rounds: Number(options.rounds ?? 3),
  grantSeeds: QUICK ? 300 : 2000,
  grantsPerSeed: 2,
  cryptoSeconds: QUICK ? 1 : 3,
  client: { warmup: 1, round: 2, rounds: 3 }, // short client rounds are noise-bound: the same in --quick
  tokenRateLimit: 100_000, // the configuration's maximum (TOKEN_RATE_LIMIT ≤ 100000 per minute and IP)
  seed: options.seed,
  // Feed imports: the movements file's size; --follow: lines a second, for how long, over how many accounts.
  importMovements: QUICK ? 100_000 : 1_000_000,
  follow: { rate: 200, seconds: QUICK ? 10 : 25, accounts: 4, pollers: 4, pollGapMs: 5 },
  // GET /v1/events: streams open at once, movements imported (the same in --quick: the figures are about 5,000).
  events: { accounts: 5000, movements: 1000 },
};
const CHAIN_ID = 'W';
const CLIENT_ID = 'waves.exchange';
const ADMIN_PG_URL =
  process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const TARGETS = {
  publicVsBare: 0.8,
  publicVsPrism: 10,
  pagesVsBare: 0.5,
  pagesP99Ms: 10,
  tokensVsVerify: 0.7,
  tokensVsTsLib: 10,
  clientOverhead: 0.1,
  rssMiB: 200,
  signedInCpuVsBaseline: 0.02, // the signed-in read's CPU per request within 2% of the baseline build's
  importPerSecond: { sqlite: 30_000, pg: 10_000 }, // records a second, `gateway movements import`
  followP99Ms: 500, // write to the pipe → GET /v1/movements/{id} answers 200, default batch settings
  eventsP99Ms: 1000, // from the import's commit to the event's receipt, 5,000 streams open
  eventsRssMiB: 250, // the gateway's RSS with 5,000 streams open
};

const ALL_IDS = [
  'public-currencies',
  'public-currency',
  'public-platform',
  'signed-in-sqlite',
  'movements-sqlite',
  'trades-sqlite',
  'tokens-sqlite',
  'events-sqlite',
  'tracing-sqlite',
  'client',
  'signed-in-pg',
  'movements-pg',
  'trades-pg',
  'tokens-pg',
  'import-sqlite',
  'import-stdin-sqlite',
  'follow-sqlite',
  'import-pg',
  'import-stdin-pg',
  'follow-pg',
  'events-pg',
];
const GROUPS = {
  public: (id) => id.startsWith('public-'),
  pages: (id) => id.startsWith('movements-') || id.startsWith('trades-'),
  'signed-in': (id) => id.startsWith('signed-in-'),
  tokens: (id) => id.startsWith('tokens-'),
  client: (id) => id === 'client',
  import: (id) => id.startsWith('import-'),
  follow: (id) => id.startsWith('follow-'),
  events: (id) => id.startsWith('events-'),
  tracing: (id) => id.startsWith('tracing-'),
  sqlite: (id) => !id.endsWith('-pg'),
  pg: (id) => id.endsWith('-pg'),
};
const onlyList = (options.profile ?? options.only)
  ?.split(',')
  .map((s) => s.trim())
  .filter(Boolean);
for (const item of onlyList ?? []) {
  if (!ALL_IDS.includes(item) && !GROUPS[item]) {
    console.error(
      `unknown scenario or group "${item}"; scenarios: ${ALL_IDS.join(', ')}; groups: ${Object.keys(GROUPS).join(', ')}`,
    );
    process.exit(2);
  }
}
const selected = (id) =>
  (!onlyList || onlyList.some((item) => item === id || GROUPS[item]?.(id))) &&
  !(options['skip-pg'] && id.endsWith('-pg'));
const anySelected = (predicate) => ALL_IDS.some((id) => predicate(id) && selected(id));
/** The scenarios measured over HTTP beside their baselines, which a baseline build joins. */
const sideBySide = (id) => GROUPS.public(id) || GROUPS.pages(id) || GROUPS['signed-in'](id) || GROUPS.tracing(id);
/** The feed scenarios: the CLI importing into fresh databases of their own (runFeeds), not over HTTP rounds. */
const feedScenario = (id) => GROUPS.import(id) || GROUPS.follow(id);

/* ------------------------------------------------------------------ builds */

/** The commit of a checkout, `+dirty` when its sources differ from it (null outside git). */
function commitOf(root) {
  try {
    const sha = execFileSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync(
      'git',
      ['-C', root, 'status', '--porcelain', '--', 'server', 'ledger', 'generated', 'client', 'bench/data.mjs'],
      { encoding: 'utf8' },
    ).trim();
    return dirty ? `${sha}+dirty` : sha;
  } catch {
    return null;
  }
}

/**
 * A gateway build: a checkout's server/dist/cli.js, and the data script that fills its databases (the
 * checkout's own bench/data.mjs when it has one: its documents rendered by its own server).
 */
function buildAt(root, label) {
  const cli = path.join(root, 'server/dist/cli.js');
  if (!isFile(cli)) throw new Error(`${cli} is missing: run \`npm ci && npm run build\` in ${root} first`);
  const ownData = path.join(root, 'bench/data.mjs');
  const commit = commitOf(root);
  return {
    root,
    cli,
    data: isFile(ownData) ? ownData : path.join(BENCH, 'data.mjs'),
    commit,
    label: label ?? commit ?? path.basename(root),
  };
}
const THIS_BUILD = { root: ROOT, cli: CLI, data: path.join(BENCH, 'data.mjs'), commit: commitOf(ROOT) };
THIS_BUILD.label = THIS_BUILD.commit ?? 'this checkout';
const BASELINE = options['baseline-build']
  ? buildAt(path.resolve(options['baseline-build']), options['baseline-label'])
  : null;
if (BASELINE && !anySelected(sideBySide)) {
  console.error(
    '--baseline-build: none of the selected scenarios is measured side by side (public, pages, signed-in, tracing)',
  );
  process.exit(2);
}

/* ------------------------------------------------------------------ bookkeeping and cleanup */

const log = (text) => process.stderr.write(`${text}\n`);
const tmpRoot = mkdtempSync(path.join(os.tmpdir(), 'gateway-bench-'));
const running = new Set();
const cleanups = [];
let cleaning = false;

async function cleanup() {
  if (cleaning) return;
  cleaning = true;
  for (const service of running) await service.stop('SIGTERM', 5000).catch(() => {});
  for (const fn of cleanups.reverse()) await fn().catch((e) => log(`cleanup: ${e.message}`));
  rmSync(tmpRoot, { recursive: true, force: true });
}
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    log(`\n${signal}: stopping`);
    cleanup().finally(() => process.exit(130));
  });
}

/* ------------------------------------------------------------------ load and rows */

const results = { scenarios: {}, datasets: {}, servers: [], profiles: {} };
let loadCounter = 0;
/** The measured rounds' window of the profiled scenario (its samples only are summarized). */
let profileWindow = null;

/**
 * Runs autocannon (pinned to core 1) against the targets side by side, their rounds alternating (see
 * lib/load.mjs); returns each target's medians over its rounds, in the order of `targets`. A signed-in
 * request (`request.signedIn`) carries each gateway's own access token (`target.token`, from its own
 * sign-in); the bare server is sent the request's default one.
 */
async function loadSideBySide(targets, request) {
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
  const file = path.join(tmpRoot, `load-${++loadCounter}.json`);
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
  if (options.profile && targets.some((target) => target.profileDir)) profileWindow = out.window;
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
function range(values) {
  const finite = values.filter((v) => typeof v === 'number' && Number.isFinite(v));
  return finite.length ? { min: Math.min(...finite), max: Math.max(...finite) } : null;
}

/**
 * The gateway against the baseline build, from the same rounds: each one's CPU µs per request (median,
 * lowest and highest round) and req/s, the difference of the medians, and the differences round by round
 * (round i of both was run back to back, so a slow spell falls on both), their median and range.
 */
function versusBaseline(gateway, baseline) {
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

const signed = (v, digits = 1) => (v === null || v === undefined ? '-' : `${v > 0 ? '+' : ''}${v.toFixed(digits)}%`);

/** One line of a comparison with the baseline build (versusBaseline). */
function formatVersus(v) {
  const { cpu, rps } = v;
  const side = (x) => `${fmt(x.median, 1)} [${fmt(x.min, 1)}–${fmt(x.max, 1)}]`;
  return (
    `CPU µs/req ${side(cpu.gateway)} vs baseline ${side(cpu.baseline)}: ${signed(cpu.differencePercent)}` +
    ` (round by round ${signed(cpu.pairedPercent.median)}, ${signed(cpu.pairedPercent.min)} to ${signed(cpu.pairedPercent.max)});` +
    ` req/s ${fmt(rps.gateway)} vs ${fmt(rps.baseline)}: ${signed(rps.differencePercent)}`
  );
}

/** One target alone (token grants: their limits are measured in-process). */
const load = async (target, request) => (await loadSideBySide([target], request))[0];

const fmt = (n, digits = 0) =>
  n === null || n === undefined
    ? '-'
    : n.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits });

function record(id, label, kind, target, measurement) {
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

/* ------------------------------------------------------------------ the gateway */

const TOKEN_SIGNING_KEY = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const SECRETS = {
  TOKEN_SIGNING_KEY,
  PROXY_SEED: 'benchmark proxy seed (not a secret)',
  CURSOR_SECRET: randomBytes(32).toString('hex'),
};

function gatewayEnv(databaseUrl, dataDir) {
  return {
    HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    TOKEN_RATE_LIMIT: String(SETTINGS.tokenRateLimit),
    CHAIN_ID: CHAIN_ID,
    CLIENT_IDS: 'waves.exchange,wx.network',
    CORS_ORIGINS: '',
    // The event-stream scenario holds 5,000 streams on one instance: above the default derived from the
    // 160 MiB heap (2,218), which is what the scenario measures the memory of.
    EVENT_STREAMS_PER_INSTANCE: String(SETTINGS.events.accounts * 2),
    // The load comes from this one machine: its connections are not capped per address (the streams
    // scenario alone holds 5,000).
    CONNECTIONS_PER_ADDRESS: '0',
    ...SECRETS,
    // Tracing off, whatever the shell says (the tracing scenario turns it on for a gateway of its own).
    ...TRACING_OFF,
  };
}

/**
 * Migrates (the build's own migrations), loads the build's demo catalogue and, when asked, the data set
 * (the build's data script, the same seed).
 */
async function prepareDatabase(store, env, withData, build = THIS_BUILD) {
  const tag = build === THIS_BUILD ? store : `${store}, baseline ${build.label}`;
  log(`[${tag}] migrate, catalogue`);
  await runNode([build.cli, 'migrate'], { env, quiet: true, cwd: build.root });
  await runNode([build.cli, 'catalogue', 'load', path.join(build.root, 'server/demo/catalogue.yaml')], {
    env,
    quiet: true,
    cwd: build.root,
  });
  if (!withData) return null;
  log(`[${tag}] data set (${QUICK ? 'quick' : 'full'}) …`);
  const summary = JSON.parse(
    await runNode([build.data, env.DATABASE_URL, ...(QUICK ? ['--quick'] : []), '--seed', SETTINGS.seed], {
      env,
      cwd: build.root,
    }),
  );
  if (build === THIS_BUILD) results.datasets[store] = summary;
  else results.datasets[`${store}-baseline`] = summary;
  log(`[${tag}] data set ready in ${summary.seconds} s`);
  return summary;
}

/**
 * Starts the gateway of a build on a free port (the PORT env must be set before spawn); only this
 * checkout's gateway is profiled.
 */
async function launchGateway(store, env, build = THIS_BUILD) {
  const port = await freePort();
  const profileDir = options.profile && build === THIS_BUILD ? path.join(tmpRoot, `profile-${store}`) : null;
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const name = build === THIS_BUILD ? `gateway (${store})` : `baseline ${build.label} (${store})`;
  const service = await startService(name, [build.cli, 'serve'], {
    port,
    core: 0,
    cwd: build.root,
    env: { ...env, PORT: String(port) },
    nodeArgs: [
      ...(profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : []),
      ...options['server-node-args'].split(' ').filter(Boolean),
    ],
  });
  running.add(service);
  service.profileDir = profileDir;
  const stop = service.stop;
  service.stop = async (...a) => {
    const lifetimePeak = peakRssMiB(service.pid);
    const code = await stop(...a);
    running.delete(service);
    results.servers.push({ name: service.name, lifetimePeakRssMiB: lifetimePeak, exitCode: code });
    if (profileDir) {
      const file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
      if (file) {
        const target = path.join(BENCH, 'results', `${stamp}-${options.profile}.cpuprofile`);
        renameSync(path.join(profileDir, file), target);
        const summary = summarizeProfile(target, 25, profileWindow);
        results.profiles[options.profile] = { file: path.relative(ROOT, target), window: profileWindow, ...summary };
        log(
          `\nprofile of ${service.name} under ${options.profile}, measured rounds only (${path.relative(ROOT, target)}):\n${formatSummary(summary)}\n`,
        );
      } else log(`no profile was written by ${service.name}`);
    }
    return code;
  };
  return service;
}
async function signIn(gateway, seed) {
  const signer = signerFromSeed(seed);
  const expiry = Math.floor(Date.now() / 1000) + 86_400;
  const body = new URLSearchParams({
    grant_type: 'password',
    scope: 'general',
    client_id: CLIENT_ID,
    username: signer.publicKey,
    password: await passwordFor(signer, CHAIN_ID, CLIENT_ID, expiry),
  });
  const response = await fetch(`${gateway.url}/v1/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
  const json = await response.json();
  if (response.status !== 200) throw new Error(`sign-in failed: ${response.status} ${JSON.stringify(json)}`);
  return json.access_token;
}

async function capture(target, request, expectItems) {
  const response = await fetch(`${target.url}${request.path}`, { headers: request.headers ?? {} });
  const body = await response.json();
  if (response.status !== 200)
    throw new Error(`${request.path}: ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
  if (expectItems !== undefined && body.items?.length !== expectItems) {
    throw new Error(`${request.path}: ${body.items?.length} items, expected ${expectItems}`);
  }
  return body;
}

/* ------------------------------------------------------------------ token grant passwords */

async function makeGrants() {
  const t = Date.now();
  const expiryBase = Math.floor(Date.now() / 1000) + 6 * 86_400;
  const grants = [];
  for (let s = 0; s < SETTINGS.grantSeeds; s++) {
    const signer = signerFromSeed(`${SETTINGS.seed} grant ${s}`);
    for (let k = 0; k < SETTINGS.grantsPerSeed; k++) {
      grants.push({
        username: signer.publicKey,
        password: await passwordFor(signer, CHAIN_ID, CLIENT_ID, expiryBase + k),
      });
    }
  }
  log(
    `[tokens] ${grants.length} passwords from ${SETTINGS.grantSeeds} seeds in ${((Date.now() - t) / 1000).toFixed(1)} s`,
  );
  const file = path.join(tmpRoot, 'grants.json');
  writeFileSync(file, JSON.stringify({ chainId: CHAIN_ID, clientId: CLIENT_ID, grants }));
  const bodies = grants.map((g) =>
    new URLSearchParams({ grant_type: 'password', scope: 'general', client_id: CLIENT_ID, ...g }).toString(),
  );
  return { file, bodies };
}

/* ------------------------------------------------------------------ scenarios */

const PUBLIC = [
  { id: 'public-currencies', label: 'GET /v1/deposit/currencies', path: '/v1/deposit/currencies' },
  { id: 'public-currency', label: 'GET /v1/deposit/currencies/USDT/ETH', path: '/v1/deposit/currencies/USDT/ETH' },
  { id: 'public-platform', label: 'GET /v1/platforms/ETH', path: '/v1/platforms/ETH' },
];

/**
 * The signed-in read path: one movement of the signed-in account by id (its newest), a primary-key read of
 * a stored document, so that the request's cost is mostly the gateway's own and the bearer check (after the
 * first request, the access token is found in the verified-token cache).
 */
const signedInOf = (store, movementId) => [
  {
    id: `signed-in-${store}`,
    label: `GET /v1/movements/{id} (${store})`,
    kind: 'signed-in',
    path: `/v1/movements/${encodeURIComponent(movementId)}`,
    signedIn: true,
  },
];

const pagesOf = (store, dataset) => [
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

/** The claim names of a gateway's access token (whether it carries `sid`, the sign-in revocation checks). */
function tokenClaims(service) {
  try {
    return Object.keys(JSON.parse(Buffer.from(service.token.split('.')[1], 'base64url').toString())).join(',');
  } catch {
    return '?';
  }
}

/** The bare Fastify server answering every item's path with the payload the gateway gave for it. */
async function startBare(items) {
  const file = path.join(tmpRoot, `bare-${++loadCounter}.json`);
  writeFileSync(file, JSON.stringify(Object.fromEntries(items.map((i) => [i.path, i.payload]))));
  const port = await freePort();
  const bare = await startService('bare fastify', [path.join(BENCH, 'lib/bare.mjs'), file, String(port)], {
    port,
    core: 0,
  });
  running.add(bare);
  for (const item of items) {
    const check = await capture(bare, item);
    if (JSON.stringify(check) !== JSON.stringify(item.payload)) throw new Error(`bare server: ${item.path} differs`);
  }
  return bare;
}

/** Prism mocking the bundled spec (its examples). */
async function startPrism() {
  log('[prism] starting the mock …');
  const port = await freePort();
  const prism = await startService(
    'prism mock',
    [PRISM_CLI, 'mock', BUNDLED_SPEC, '--host', '127.0.0.1', '--port', String(port), '-v', 'error'],
    { port, core: 0, timeoutMs: 120_000 },
  );
  running.add(prism);
  return prism;
}

async function stopAll(services) {
  for (const service of services) {
    await service.stop();
    running.delete(service);
  }
}

/**
 * The in-process signature-check rates (lib/crypto-rate.mjs, core 0, while the gateway idles): the token
 * scenario's baselines. Measured just before and just after the grants and averaged, so that they are taken
 * under the same conditions as the grants (on a shared machine, the reference library's rate alone has moved
 * from 66 to 124 checks/s within an hour).
 */
async function measureVerification(grants) {
  const background = await backgroundBusy(500);
  const rates = JSON.parse(
    await runNode([path.join(BENCH, 'lib/crypto-rate.mjs'), grants.file, String(SETTINGS.cryptoSeconds)], {
      core: 0,
    }),
  );
  log(
    `  verify: warm ${fmt(rates.warm.perSecond)}/s, cold ${fmt(rates.cold.perSecond)}/s, ts-lib-crypto ${fmt(rates.reference.perSecond)}/s (${fmt(rates.referenceWarmUp.perSecond)}/s while warming up)` +
      (rates.warm.failures || rates.reference.failures ? '  !! some signatures did not verify' : ''),
  );
  return { ...rates, backgroundCpu: background };
}

/** Two verification measurements as one: each rate the mean of the two. */
function meanVerification(before, after) {
  const mean = (key) => ({ perSecond: (before[key].perSecond + after[key].perSecond) / 2 });
  return {
    warm: mean('warm'),
    cold: mean('cold'),
    reference: mean('reference'),
    backgroundCpu: Math.max(before.backgroundCpu ?? 0, after.backgroundCpu ?? 0),
    before,
    after,
  };
}

async function runStore(store, databaseUrl, dataDir, grants, baselineDatabase = null) {
  const ids = ALL_IDS.filter(
    (id) => selected(id) && !feedScenario(id) && (store === 'pg' ? id.endsWith('-pg') : !id.endsWith('-pg')),
  );
  if (ids.length === 0) return;
  const env = gatewayEnv(databaseUrl, dataDir);
  const withData = ids.some((id) => GROUPS.pages(id) || GROUPS['signed-in'](id) || GROUPS.tracing(id));
  const dataset = await prepareDatabase(store, env, withData);
  const gateway = await launchGateway(store, env);
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
    if (ids.includes('client')) {
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
    // Event streams: thousands of accounts signed in, a stream each, one import of new movements.
    const eventsId = `events-${store}`;
    if (ids.includes(eventsId)) {
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
    // Token grants last (they write token families and refresh tokens).
    const tokenId = `tokens-${store}`;
    if (ids.includes(tokenId)) {
      log(`  ${tokenId.padEnd(18)} signature checks in-process, before and after the grants …`);
      const before = await measureVerification(grants);
      const measurement = await load(gateway, {
        path: '/v1/oauth2/token',
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        bodies: grants.bodies,
      });
      const after = await measureVerification(grants);
      record(tokenId, `POST /v1/oauth2/token password (${store})`, 'tokens', 'gateway', measurement);
      results.scenarios[tokenId].verification = meanVerification(before, after);
    }
  } finally {
    await stopAll(baselines);
    if (baseline) await baseline.stop();
    await gateway.stop();
  }
}

/* ------------------------------------------------------------------ feed imports (the CLI) */

/**
 * Before a feed measurement: the share of the CPU busy with other work (waiting up to --wait-idle for it
 * to fall under 10%, as the HTTP rounds do) and the load average.
 */
async function machineBefore() {
  let background = await backgroundBusy(500);
  const waitUntil = Date.now() + Number(options['wait-idle']) * 1000;
  if (background !== null && background > 0.1 && Date.now() < waitUntil) {
    log(
      `  waiting up to ${options['wait-idle']} s for the machine to be idle (${(background * 100).toFixed(0)}% busy) …`,
    );
    while (background > 0.1 && Date.now() < waitUntil) background = await backgroundBusy(1000);
  }
  if (background !== null && background > 0.1) {
    log(
      `  !! ${(background * 100).toFixed(0)}% of the CPU is busy with other work before this measurement: numbers will be low`,
    );
  }
  return { backgroundCpu: background, loadAvg1Before: os.loadavg()[0], cpu: cpuTimes() };
}

/** What the machine did over a measurement: its whole CPU busy share (ours included) and the load average. */
function machineAfter(before) {
  const now = cpuTimes();
  const total = now.total - before.cpu.total;
  return {
    backgroundCpu: before.backgroundCpu,
    loadAvg1Before: before.loadAvg1Before,
    loadAvg1After: os.loadavg()[0],
    machineBusyDuring: total > 0 ? 1 - (now.idle - before.cpu.idle) / total : null,
  };
}

/** A fresh database for one feed scenario (SQLite file, or a PostgreSQL database `bench_import_…`, dropped at the end). */
async function freshDatabase(store, id) {
  const dataDir = mkdtempSync(path.join(tmpRoot, `${id}-`));
  if (store === 'sqlite') return { url: `sqlite:${path.join(dataDir, 'gateway.db')}`, dataDir };
  const pg = require('pg');
  const db = `bench_import_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_PG_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${db}`);
  } finally {
    await admin.end().catch(() => {});
  }
  cleanups.push(async () => {
    const c = new pg.Client({ connectionString: ADMIN_PG_URL });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
    await c.end();
    log(`[pg] dropped database ${db}`);
  });
  const url = new URL(ADMIN_PG_URL);
  url.pathname = `/${db}`;
  log(`[pg] database ${db} (${id})`);
  return { url: url.toString(), dataDir };
}

/** The movements stored, from `gateway status --json`. */
async function storedMovements(env) {
  const status = JSON.parse(await runNode([CLI, 'status', '--json'], { env, quiet: true }));
  return status.counts?.movements ?? null;
}

/**
 * `gateway movements import FILE` (or `cat FILE | gateway movements import -`) into a fresh database
 * (migrated, demo catalogue), pinned to core 0: records a second over the command's wall time (start to
 * exit: the file's check pass and the writes), its CPU time and peak RSS; the count stored must equal the
 * file's lines.
 */
async function measureImport(store, id, source, viaStdin) {
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
const IMPORT_BATCH = 5000;

/**
 * The storage's floor for an import: the same file written into another fresh database of the same schema
 * by the database driver alone (no checks; the gateway's statements and batch size), pinned like the CLI.
 */
async function measureImportFloor(store, id, source) {
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

/**
 * `gateway serve` and `gateway movements import - --follow` (default batch settings) on one fresh database;
 * movement lines of a few signed-in accounts written to the importer's standard input at a steady rate,
 * each timed from its write to the first `GET /v1/movements/{id}` answering 200 (lib/feeds.mjs).
 */
async function measureFollow(store, id) {
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

/** The feed scenarios selected, SQLite then PostgreSQL, each on fresh databases. */
async function runFeeds() {
  const ids = ALL_IDS.filter((id) => selected(id) && feedScenario(id));
  if (ids.length === 0) return;
  const source = ids.some(GROUPS.import) ? movementsFile(SETTINGS.seed, SETTINGS.importMovements, log) : null;
  if (source) results.importFile = { ...source, file: path.relative(ROOT, source.file) };
  for (const store of ['sqlite', 'pg']) {
    const own = ids.filter((id) => (store === 'pg' ? GROUPS.pg(id) : GROUPS.sqlite(id)));
    try {
      for (const id of own) {
        if (GROUPS.import(id)) await measureImport(store, id, source, id.startsWith('import-stdin-'));
        else await measureFollow(store, id);
      }
    } catch (error) {
      if (store === 'pg' && /ECONNREFUSED|connect/.test(error.message) && !results.scenarios[own[0]]) {
        log(`[pg] PostgreSQL unavailable at ${ADMIN_PG_URL} (${error.message}): feed scenarios skipped`);
        results.pgSkipped = error.message;
      } else throw error;
    }
  }
}

/* ------------------------------------------------------------------ verdicts and the table */

const ratio = (a, b) => (a && b ? a / b : null);
const check = (value, ok, text) => ({ value, pass: value === null ? null : ok(value), text });

function evaluate() {
  const rows = [];
  const rssCheck = (m) => check(m.peakRssMiB, (v) => v < TARGETS.rssMiB, `RSS<${TARGETS.rssMiB}MB`);
  for (const s of Object.values(results.scenarios)) {
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
    if (s.kind === 'pages' && m.gateway) {
      rows.push({
        scenario: s.label,
        id: s.id,
        target: 'gateway',
        ...pick(m.gateway),
        checks: [
          check(
            ratio(m.gateway.rps, m.bare?.rps),
            (v) => v >= TARGETS.pagesVsBare,
            `x bare (>=${TARGETS.pagesVsBare})`,
          ),
          check(m.gateway.p99, (v) => v < TARGETS.pagesP99Ms, `p99<${TARGETS.pagesP99Ms}ms`),
          rssCheck(m.gateway),
          ...baselineChecks(s),
        ],
      });
      rows.push(...baselineRows(s));
      if (m.bare) rows.push({ scenario: '', id: s.id, target: 'bare fastify', ...pick(m.bare), checks: [] });
    }
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
    if (s.kind === 'tokens' && m.gateway) {
      const verify = s.verification;
      rows.push({
        scenario: s.label,
        id: s.id,
        target: 'gateway',
        ...pick(m.gateway),
        checks: [
          check(
            ratio(m.gateway.rps, verify?.warm.perSecond),
            (v) => v >= TARGETS.tokensVsVerify,
            `x verify (>=${TARGETS.tokensVsVerify})`,
          ),
          check(
            ratio(m.gateway.rps, verify?.reference.perSecond),
            (v) => v >= TARGETS.tokensVsTsLib,
            `x ts-lib (>=${TARGETS.tokensVsTsLib})`,
          ),
          rssCheck(m.gateway),
        ],
      });
      if (verify) {
        const baseline = (target, rate, background) => ({
          scenario: '',
          id: s.id,
          target,
          rps: rate,
          p50: null,
          p99: null,
          rss: null,
          background,
          checks: [],
        });
        rows.push(baseline('server verify', verify.warm.perSecond, verify.backgroundCpu));
        rows.push(baseline('server, cold key', verify.cold.perSecond));
        rows.push(baseline('ts-lib-crypto', verify.reference.perSecond));
      }
    }
    // Feed imports: records a second in the req/s column, the CLI's peak RSS, CPU µs per record.
    if (s.kind === 'import' && m.gateway) {
      const g = m.gateway;
      const goal = TARGETS.importPerSecond[s.store];
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
          check(g.rps, (v) => v >= goal, `records/s (>=${goal})`),
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
    if (s.kind === 'tracing') rows.push(...tracingRows(s, pick));
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
  }
  return rows;
}

/**
 * The gateway's CPU per request against the baseline build's (difference of the medians): a verdict when
 * the scenario has a target for it (`limit`, a fraction), information otherwise.
 */
function baselineChecks(s, limit = null) {
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

function baselineRows(s) {
  const m = s.measurements.baseline;
  return m ? [{ scenario: '', id: s.id, target: `gateway ${s.baseline.label}`, ...pick(m), checks: [] }] : [];
}

function pick(m) {
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

function printTable(rows) {
  const header = ['scenario', 'target', 'req/s', 'p50 ms', 'p99 ms', 'RSS MB', 'CPU µs', 'targets'];
  const lines = rows.map((r) => [
    r.scenario,
    r.target,
    fmt(r.rps),
    fmt(r.p50, 2),
    fmt(r.p99, 2),
    fmt(r.rss, 1),
    fmt(r.cpu),
    [
      ...r.checks.map((c) => {
        const v =
          c.value === null
            ? '-'
            : c.percent
              ? `${(c.value * 100).toFixed(1)}%`
              : c.text.startsWith('x')
                ? `${c.value.toFixed(2)}`
                : fmt(c.value, c.digits ?? (c.text.startsWith('p99') ? 2 : c.text.startsWith('records/s') ? 0 : 1));
        // A check without a verdict but with a value is information (a baseline's own figure).
        const verdict = c.pass === null ? (c.value === null ? ' n/a' : '') : c.pass ? ' PASS' : ' MISS';
        return c.value === null && c.pass !== null ? `${c.text}${verdict}` : `${v} ${c.text}${verdict}`;
      }),
      ...(r.non2xx || r.errors ? [`!! ${r.non2xx} non-2xx, ${r.errors} errors`] : []),
      ...(r.background > 0.1 ? [`!! machine ${(r.background * 100).toFixed(0)}% busy with other work`] : []),
    ].join(' | '),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const right = new Set([2, 3, 4, 5, 6]);
  const line = (cells) =>
    cells
      .map((c, i) => (right.has(i) ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const l of lines) console.log(line(l));
}

/* ------------------------------------------------------------------ main */

const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);

async function main() {
  for (const dist of [
    'server/dist/cli.js',
    'client/dist/index.js',
    'ledger/dist/index.js',
    'generated/dist/index.js',
  ]) {
    if (!isFile(path.join(ROOT, dist))) throw new Error(`${dist} is missing: run \`npx turbo run build\` first`);
  }
  const machine = {
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    pinned: canPin() ? 'server core 0, load generator core 1' : 'no (needs 2 cores and taskset)',
  };
  log(
    `gateway benchmark (${SETTINGS.mode}): ${machine.cpu} x${machine.cores}, ${machine.memoryGiB} GiB, node ${machine.node}, pinning: ${machine.pinned}`,
  );

  const grants = anySelected(GROUPS.tokens) ? await makeGrants() : null;

  if (anySelected((id) => GROUPS.sqlite(id) && !feedScenario(id))) {
    const dir = mkdtempSync(path.join(tmpRoot, 'sqlite-'));
    const baseDir = BASELINE ? mkdtempSync(path.join(tmpRoot, 'sqlite-baseline-')) : null;
    await runStore(
      'sqlite',
      `sqlite:${path.join(dir, 'gateway.db')}`,
      dir,
      grants,
      baseDir ? { url: `sqlite:${path.join(baseDir, 'gateway.db')}`, dataDir: baseDir } : null,
    );
  }

  if (anySelected((id) => GROUPS.pg(id) && !feedScenario(id))) {
    const pg = require('pg');
    const name = `bench_${randomBytes(6).toString('hex')}`;
    // The baseline build (--baseline-build) has a database of its own.
    const names = BASELINE ? [name, `${name}_baseline`] : [name];
    const admin = new pg.Client({ connectionString: ADMIN_PG_URL });
    let created = false;
    try {
      await admin.connect();
      for (const db of names) {
        await admin.query(`CREATE DATABASE ${db}`);
        cleanups.push(async () => {
          const c = new pg.Client({ connectionString: ADMIN_PG_URL });
          await c.connect();
          await c.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
          await c.end();
          log(`[pg] dropped database ${db}`);
        });
      }
      created = true;
    } catch (error) {
      log(`[pg] PostgreSQL unavailable at ${ADMIN_PG_URL} (${error.message}): PostgreSQL scenarios skipped`);
      results.pgSkipped = error.message;
    } finally {
      await admin.end().catch(() => {});
    }
    if (created) {
      const urlOf = (db) => {
        const url = new URL(ADMIN_PG_URL);
        url.pathname = `/${db}`;
        return url.toString();
      };
      log(`[pg] database ${names.join(', ')}`);
      await runStore(
        'pg',
        urlOf(name),
        mkdtempSync(path.join(tmpRoot, 'pg-')),
        grants,
        BASELINE ? { url: urlOf(names[1]), dataDir: mkdtempSync(path.join(tmpRoot, 'pg-baseline-')) } : null,
      );
    }
  }

  await runFeeds();

  const rows = evaluate();
  const compared = Object.values(results.scenarios).filter((s) => s.versusBaseline);
  const minutes = (Date.now() - startedAt) / 60_000;
  console.log(
    `\nExchange gateway benchmark, ${SETTINGS.mode} run, ${new Date().toISOString()} (${minutes.toFixed(1)} min)`,
  );
  console.log(
    `${machine.cpu} x${machine.cores}, ${machine.memoryGiB} GiB, node ${machine.node}; pinned: ${machine.pinned}`,
  );
  console.log(
    `${SETTINGS.connections} connections, warm-up ${SETTINGS.warmupSeconds} s, ${SETTINGS.rounds} rounds of ${SETTINGS.roundSeconds} s, medians` +
      (Object.keys(results.datasets).length
        ? `; data: ${Object.entries(results.datasets)
            .map(
              ([k, d]) => `${k} ${fmt(d.movements)} movements + ${fmt(d.trades)} trades, ${fmt(d.accounts)} accounts`,
            )
            .join('; ')}`
        : ''),
  );
  console.log('');
  printTable(rows);
  if (compared.length) {
    console.log(
      `\nThis build (${THIS_BUILD.label}) against the baseline build (${BASELINE.label}, ${BASELINE.root}), the same rounds: CPU µs per request median [lowest–highest round], the difference of the medians, and round by round (median, range)`,
    );
    for (const s of compared) {
      console.log(
        `${s.label.padEnd(42)} ${formatVersus(s.versusBaseline)}${s.baseline.answersDiffer ? '  !! answers differ' : ''}`,
      );
    }
  }
  const verdicts = rows.flatMap((r) =>
    r.checks.map((c) => ({ row: `${r.id} ${r.target}`, check: c.text, value: c.value, pass: c.pass })),
  );
  const passed = verdicts.filter((v) => v.pass === true).length;
  const missed = verdicts.filter((v) => v.pass === false);
  console.log(
    `\n${passed} PASS, ${missed.length} MISS${missed.length ? `: ${missed.map((m) => `${m.row} ${m.check}`).join('; ')}` : ''}`,
  );

  mkdirSync(path.join(BENCH, 'results'), { recursive: true });
  const file = path.join(
    BENCH,
    'results',
    `${stamp}${QUICK ? '-quick' : ''}${onlyList ? '-partial' : ''}${BASELINE ? '-ab' : ''}.json`,
  );
  writeFileSync(
    file,
    `${JSON.stringify({ date: new Date().toISOString(), minutes, machine, settings: SETTINGS, targets: TARGETS, only: onlyList ?? null, builds: { gateway: THIS_BUILD, baseline: BASELINE }, table: rows, verdicts, ...results }, null, 2)}\n`,
  );
  // The repository's `biome check .` covers bench/: leave the file formatted its way (best effort).
  spawnSync(path.join(ROOT, 'node_modules/.bin/biome'), ['format', '--write', file], { cwd: ROOT, stdio: 'ignore' });
  console.log(`results: ${path.relative(ROOT, file)}`);
}

main()
  .then(
    () => cleanup(),
    async (error) => {
      console.error(error);
      for (const s of running) log(`--- ${s.name} log:\n${s.log().slice(-3000)}`);
      await cleanup();
      process.exitCode = 1;
    },
  )
  .then(() => process.exit());
