/**
 * What every part of `npm run bench` shares (bench/run.mjs): the options, the settings and targets they give,
 * the scenario ids and their selection, the builds measured, the run's temporary folder, the services to
 * stop at the end, and the results as they are recorded.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH, CLI, isFile, ROOT } from './lib/common.mjs';

/** When the run began. */
export const startedAt = Date.now();

/* ------------------------------------------------------------------ options */

export const { values: options } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    'skip-pg': { type: 'boolean', default: false },
    profile: { type: 'string' },
    connections: { type: 'string', default: '10' },
    'wait-idle': { type: 'string', default: '0' },
    // The server runs as `npm start` runs it (see docs/deployment.md: the heap cap keeps RSS bounded).
    'server-node-args': { type: 'string', default: '--max-old-space-size=160 --max-semi-space-size=16' },
    // postgres-floor.mjs: more direct gateways beside the others, each run with one of these Node flag sets
    // (`|` between sets), to compare heap settings side by side in one run.
    'also-node-args': { type: 'string' },
    // postgres-floor.mjs: each server's connections to PostgreSQL (DATABASE_POOL_SIZE, the floor's pool).
    'pool-size': { type: 'string', default: '10' },
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

export const QUICK = options.quick;
/** The Node flags the gateways run with (`--server-node-args`), as a list. */
export const SERVER_NODE_ARGS = options['server-node-args'].split(' ').filter(Boolean);
export const SETTINGS = {
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
  // The sign-in storm: accounts never seen, a fresh set each round; keep-alive connections per gateway (two).
  storm: { accounts: QUICK ? 2000 : 5000, connections: 8, rounds: QUICK ? 1 : 3 },
};
export const CHAIN_ID = 'W';
export const CLIENT_ID = 'waves.exchange';
export const ADMIN_PG_URL =
  process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export const TARGETS = {
  publicVsBare: 0.8,
  publicVsPrism: 10,
  pagesVsBare: 0.5,
  pagesP99Ms: 10,
  tokensVsCeiling: 0.5, // grants/s against one verification plus one signing a grant, in-process (tokens.mjs)
  tokensVsTsLib: 10,
  clientOverhead: 0.1,
  rssMiB: 200,
  signedInCpuVsBaseline: 0.02, // the signed-in read's CPU per request within 2% of the baseline build's
  // `gateway movements import`: on PostgreSQL, records a second; on SQLite, a share of the storage's floor (the
  // driver alone writing the same rows, measured beside it), as the floor itself is under 30,000 a second there.
  importPerSecond: { pg: 10_000 },
  importVsFloor: { sqlite: 0.85 },
  followP99Ms: 500, // write to the pipe → GET /v1/movements/{id} answers 200, default batch settings
  eventsP99Ms: 1000, // from the import's commit to the event's receipt, 5,000 streams open
  eventsRssMiB: 250, // the gateway's RSS with 5,000 streams open
};

export const ALL_IDS = [
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
  'storm-pg',
];
export const GROUPS = {
  public: (id) => id.startsWith('public-'),
  pages: (id) => id.startsWith('movements-') || id.startsWith('trades-'),
  'signed-in': (id) => id.startsWith('signed-in-'),
  tokens: (id) => id.startsWith('tokens-'),
  client: (id) => id === 'client',
  import: (id) => id.startsWith('import-'),
  follow: (id) => id.startsWith('follow-'),
  events: (id) => id.startsWith('events-'),
  tracing: (id) => id.startsWith('tracing-'),
  storm: (id) => id.startsWith('storm-'),
  sqlite: (id) => !id.endsWith('-pg'),
  pg: (id) => id.endsWith('-pg'),
};
export const onlyList = (options.profile ?? options.only)
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
export const selected = (id) =>
  (!onlyList || onlyList.some((item) => item === id || GROUPS[item]?.(id))) &&
  !(options['skip-pg'] && id.endsWith('-pg'));
export const anySelected = (predicate) => ALL_IDS.some((id) => predicate(id) && selected(id));
/** The scenarios measured over HTTP beside their baselines, which a baseline build joins. */
export const sideBySide = (id) =>
  GROUPS.public(id) || GROUPS.pages(id) || GROUPS['signed-in'](id) || GROUPS.tracing(id);
/**
 * The scenarios on fresh databases of their own, not the HTTP rounds' gateway: the feeds (the CLI importing,
 * runFeeds) and the sign-in storm (scenarios/storm.mjs: two gateways of its own).
 */
export const feedScenario = (id) => GROUPS.import(id) || GROUPS.follow(id) || GROUPS.storm(id);

/* ------------------------------------------------------------------ builds */

/** The commit of a checkout, `+dirty` when its sources differ from it (null outside git). */
export function commitOf(root) {
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
export function buildAt(root, label) {
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
export const THIS_BUILD = { root: ROOT, cli: CLI, data: path.join(BENCH, 'data.mjs'), commit: commitOf(ROOT) };
THIS_BUILD.label = THIS_BUILD.commit ?? 'this checkout';
export const BASELINE = options['baseline-build']
  ? buildAt(path.resolve(options['baseline-build']), options['baseline-label'])
  : null;
if (BASELINE && !anySelected((id) => sideBySide(id) || GROUPS.storm(id))) {
  console.error(
    '--baseline-build: none of the selected scenarios is measured side by side (public, pages, signed-in, tracing, storm)',
  );
  process.exit(2);
}

/* ------------------------------------------------------------------ bookkeeping and cleanup */

export const log = (text) => process.stderr.write(`${text}\n`);
export const tmpRoot = mkdtempSync(path.join(os.tmpdir(), 'gateway-bench-'));
export const running = new Set();
export const cleanups = [];
let cleaning = false;

export async function cleanup() {
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

/* ------------------------------------------------------------------ results */

export const results = { scenarios: {}, datasets: {}, servers: [], profiles: {} };
export const state = {
  /** Numbers the files of load configurations and bare payloads. */
  loadCounter: 0,
  /** The measured rounds' window of the profiled scenario (its samples only are summarized). */
  profileWindow: null,
};

export const fmt = (n, digits = 0) =>
  n === null || n === undefined
    ? '-'
    : n.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** The run's time stamp: its results file and profiles are named after it. */
export const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
