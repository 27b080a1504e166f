/**
 * bench/postgres-floor.mjs's run, on the pinned Node. PostgreSQL reads against their floor (issue 38, item 4; bench/postgres-floor.md): the signed-in movements
 * page (limit 100) and a single movement, on a database of its own loaded as the bench's PostgreSQL scenarios
 * load it (gateway.mjs: the build's migrate, catalogue and data script), a PgBouncer in transaction mode in
 * front (lib/pgbouncer.mjs). Six targets, their rounds alternating (lib/load.mjs, one round at a time):
 *
 *   gateway direct          DATABASE_POOL_MODE=session: list pages as named prepared statements
 *   gateway pgbouncer       through PgBouncer, DATABASE_POOL_MODE=transaction: unnamed
 *   gateway direct unnamed  DATABASE_POOL_MODE=transaction without a pooler: the statements' cost alone
 *   floor direct            lib/pg-floor.mjs: a bare Fastify route running the gateway's own SQL (compiled by
 *   floor pgbouncer         server/dist's functions) through a pg pool of the store's settings; named as the
 *                           gateway direct, unnamed through PgBouncer
 *   floor direct + headers  the floor direct writing the headers the gateway's answers carry: the same answer
 *
 * Then each target at a fixed rate, half its connection kind's bare floor's req/s, evenly spaced (lib/load.mjs's
 * overallRate, lib/paced-load.mjs; latencies from when each request was due): p99.
 * Each round also counts the CPU time of the database's backends serving this database (and PgBouncer's),
 * per request. Servers on core 0, the load generator on core 1; PostgreSQL and PgBouncer where the scheduler
 * puts them (as in `npm run bench`).
 *
 *   npm run build && node bench/postgres-floor.mjs [--rounds N] [--round-seconds S] [--warmup-seconds S]
 *                                                  [--connections N] [--quick] [--wait-idle S] [--seed TEXT]
 *                                                  [--server-node-args=FLAGS] [--also-node-args='FLAGS|FLAGS']
 *                                                  [--pool-size N]
 *
 * --also-node-args: one more direct gateway for each set of Node flags, beside the one run with
 * --server-node-args (`npm start`'s heap flags by default): heap settings compared in one run. The floors take
 * the heap V8 chooses, and of --server-node-args only a `--v8-pool-size` (the helper threads sharing the core).
 *
 * --pool-size: every server's connections to PostgreSQL (the gateways' DATABASE_POOL_SIZE, the floors' `pg`
 * pool; 10, the gateway's default): through PgBouncer, its client connections, which it serves on as many.
 *
 * PostgreSQL: BENCH_DATABASE_URL (else TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/test); a
 * database `bench_floor_<random>` is created and dropped. Results: bench/results/<date>-postgres-floor.json.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { findMovementDocument, movementsPageQuery } from '../../server/dist/store/movements.js';
import {
  ADMIN_PG_URL,
  cleanup,
  cleanups,
  fmt,
  log,
  options,
  QUICK,
  results,
  running,
  SERVER_NODE_ARGS,
  stamp,
  startedAt,
  THIS_BUILD,
  tmpRoot,
} from '../context.mjs';
import { capture, gatewayEnv, launchGateway, prepareDatabase, signIn } from '../gateway.mjs';
import { BENCH, backgroundBusy, canPin, freePort, median, peakRssMiB, ROOT, runNode, startService } from './common.mjs';
import { startPgBouncer } from './pgbouncer.mjs';

const SETTINGS = {
  mode: QUICK ? 'quick' : 'full',
  connections: Number(options.connections),
  rounds: Number(options.rounds ?? 3),
  roundSeconds: Number(options['round-seconds'] ?? (QUICK ? 2 : 4)),
  // A warm-up in chunks of this length, until the server's CPU a request has settled (`warmUp`).
  warmupSeconds: Number(options['warmup-seconds'] ?? (QUICK ? 1 : 2)),
  warmupChunksAtLeast: QUICK ? 2 : 4,
  warmupChunksAtMost: QUICK ? 6 : 15,
  // Before each round (a target waits while the others take their turns): the pools' connections, closed
  // after 10 s idle (pg's default), open again, and the server back from its idle spell (bench/postgres-floor.md).
  roundWarmupSeconds: 1,
  // At a fixed rate, longer: the load generator's own process is new each round, and its first seconds
  // (compiling, its heap growing) are late with answers by some milliseconds (lib/paced-load.mjs).
  pacedWarmupSeconds: QUICK ? 2 : 3,
  // DATABASE_POOL_SIZE (10, its default, unless --pool-size), and the floor's pool: the same.
  poolSize: Number(options['pool-size']),
  pgbouncerPoolSize: 20,
  pageLimit: 100,
};
if (!Number.isInteger(SETTINGS.poolSize) || SETTINGS.poolSize < 1)
  throw new Error('--pool-size: a whole number, 1 or more');
const GOALS = { vsFloor: 0.8, p99Ms: 10 };

/* ------------------------------------------------------------------ CPU time of processes */

const TICK_US = 10_000; // Linux clock ticks of 10 ms

function cpuUsOf(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_US;
  } catch {
    return null;
  }
}

/** CPU µs of each PostgreSQL backend serving `database` (by its process title), by pid. */
function backendsCpu(database) {
  const cpu = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let title;
    try {
      title = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (!title.startsWith('postgres:') || !title.includes(` ${database} `)) continue;
    const us = cpuUsOf(entry);
    if (us !== null) cpu.set(entry, us);
  }
  return cpu;
}

/**
 * CPU µs the backends spent between two readings: each backend's difference, a new one's whole time. A
 * backend gone in between (a pool's idle connection closed) is left out: it was idle, the other target's.
 */
function backendsDelta(before, after) {
  let sum = 0;
  for (const [pid, us] of after) sum += us - (before.get(pid) ?? 0);
  return sum;
}

/**
 * PgBouncer's totals for the run's database (SHOW STATS on its console): queries and transactions it passed
 * on, the µs they took on the server (its answer included) and the µs clients waited for a server connection.
 */
async function poolerStats() {
  const { rows } = await database.console.query({ text: 'SHOW STATS', queryMode: 'simple' });
  const row = rows.find((r) => r.database === database.name) ?? {};
  const n = (key) => Number(row[key] ?? 0);
  return {
    queries: n('total_query_count'),
    xacts: n('total_xact_count'),
    queryUs: n('total_query_time'),
    waitUs: n('total_wait_time'),
  };
}

/* ------------------------------------------------------------------ the SQL, from the server's own functions */

/**
 * The gateway's SQL for the signed-in account's movements page and one of its movements, compiled by the
 * store's functions (server/dist/store/movements.js): the page's query as the store builds it, the single
 * movement's as the store hands it to `firstColumn` (captured).
 */
async function gatewaySql(account, movementId) {
  const db = new Kysely({
    dialect: new PostgresDialect({ pool: { connect: async () => ({}), end: async () => {} } }),
  });
  const page = movementsPageQuery(db, { account, limit: SETTINGS.pageLimit, after: null });
  const sent = [];
  const firstColumn = async (query) => {
    sent.push({ sql: query.sql, parameters: [...query.parameters] });
    return ['{}'];
  };
  await findMovementDocument({ db, firstColumn }, account, movementId);
  if (sent.length !== 1) throw new Error(`findMovementDocument sent ${sent.length} queries`);
  return { page: { sql: page.sql, parameters: [...page.parameters] }, single: sent[0] };
}

/* ------------------------------------------------------------------ rounds */

const headersOf = (target) => (target.token ? { authorization: `Bearer ${target.token}` } : {});

/**
 * One run of lib/load.mjs against one target (pinned to core 1): `rounds` rounds of `seconds` (0: the
 * warm-up alone), at a fixed `rate` when given. Around it, the CPU of this database's backends and of
 * PgBouncer.
 */
async function runLoad(target, request, { seconds, warmupSeconds = 0, rounds = 1, rate }) {
  const file = path.join(tmpRoot, `floor-load-${randomBytes(4).toString('hex')}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      targets: [{ url: target.url, serverPid: target.pid, headers: headersOf(target) }],
      path: request.path,
      method: 'GET',
      headers: {},
      connections: SETTINGS.connections,
      ...(rate ? { overallRate: rate, slowMs: GOALS.p99Ms } : {}),
      warmupSeconds,
      roundSeconds: seconds,
      rounds,
    }),
  );
  const through = target.kind === 'pgbouncer';
  const stats = through ? await poolerStats() : null;
  const backends = backendsCpu(database.name);
  const pooler = cpuUsOf(database.pgbouncer.pid());
  const out = JSON.parse(await runNode([path.join(BENCH, 'lib/load.mjs'), file], { core: 1 }));
  const dbUs = backendsDelta(backends, backendsCpu(database.name));
  const poolerUs = cpuUsOf(database.pgbouncer.pid()) - pooler;
  const after = through ? await poolerStats() : null;
  const { warmup, rounds: done } = out.targets[0];
  const round = done[0];
  if (!round) return { warmup };
  // The round's warm-up falls in the same window: the database's time is per request of both.
  const requests = round.requests + (warmup?.requests ?? 0);
  return {
    ...round,
    rate: rate ?? null,
    dbCpuUsPerRequest: dbUs / requests,
    poolerCpuUsPerRequest: through ? poolerUs / requests : null,
    // Through PgBouncer: what it counted, per request (queries, transactions) and per query (µs).
    queriesPerRequest: through ? (after.queries - stats.queries) / requests : null,
    xactsPerRequest: through ? (after.xacts - stats.xacts) / requests : null,
    serverUsPerQuery: through ? (after.queryUs - stats.queryUs) / Math.max(1, after.queries - stats.queries) : null,
    waitUsPerQuery: through ? (after.waitUs - stats.waitUs) / Math.max(1, after.queries - stats.queries) : null,
  };
}

/** Waits (--wait-idle S) for other work on the machine to finish; returns the share of the CPU it held. */
async function background(pids) {
  let busy = await backgroundBusy(500, pids);
  const until = Date.now() + Number(options['wait-idle']) * 1000;
  while (busy !== null && busy > 0.1 && Date.now() < until) busy = await backgroundBusy(1000, pids);
  if (busy !== null && busy > 0.1) log(`  !! ${(busy * 100).toFixed(0)}% of the CPU busy with other work`);
  return busy;
}

/** The medians of a target's rounds. */
function summarize(rounds) {
  const of = (key) => median(rounds.map((r) => r[key]));
  return {
    rps: of('rps'),
    p50: of('p50'),
    p99: of('p99'),
    cpuUsPerRequest: of('serverCpuUsPerRequest'),
    dbCpuUsPerRequest: of('dbCpuUsPerRequest'),
    poolerCpuUsPerRequest: of('poolerCpuUsPerRequest'),
    queriesPerRequest: of('queriesPerRequest'),
    xactsPerRequest: of('xactsPerRequest'),
    serverUsPerQuery: of('serverUsPerQuery'),
    waitUsPerQuery: of('waitUsPerQuery'),
    // At a fixed rate: the share of all its rounds' requests answered later than the p99 goal (in a stall of
    // lib/paced-load.mjs), less moved than a p99 by one long stall more or less in a run.
    overGoal: rounds.every((r) => Array.isArray(r.stalls))
      ? rounds.flatMap((r) => r.stalls).reduce((n, stall) => n + stall.requests, 0) /
        Math.max(
          1,
          rounds.reduce((n, r) => n + r.requests, 0),
        )
      : null,
    errors: rounds.reduce((s, r) => s + r.errors + r.timeouts, 0),
    non2xx: rounds.reduce((s, r) => s + r.non2xx, 0),
    rounds: rounds.map((r) => ({
      rps: r.rps,
      p50: r.p50,
      p99: r.p99,
      requests: r.requests,
      seconds: r.seconds,
      rate: r.rate,
      // At a fixed rate: requests that found every connection busy (lib/paced-load.mjs).
      queued: r.queued ?? null,
      // And when it began (ms since the epoch), and its requests over the p99 goal, as stalls: when (ms
      // after the start), how many, the longest, how long (lib/paced-load.mjs).
      startedAt: r.startedAt ?? null,
      stalls: r.stalls ?? null,
      serverCpuUsPerRequest: r.serverCpuUsPerRequest,
      dbCpuUsPerRequest: r.dbCpuUsPerRequest,
      poolerCpuUsPerRequest: r.poolerCpuUsPerRequest,
      queriesPerRequest: r.queriesPerRequest,
      xactsPerRequest: r.xactsPerRequest,
      serverUsPerQuery: r.serverUsPerQuery,
      waitUsPerQuery: r.waitUsPerQuery,
    })),
  };
}

/**
 * A target's warm-up on one request, in chunks of `warmupSeconds` as fast as answers come, until the server's
 * CPU a request has settled: at least `warmupChunksAtLeast` chunks, then until a chunk no longer costs 5% less
 * than the cheapest before it (at most `warmupChunksAtMost`). A fresh gateway spends 30-50% more CPU a page in
 * its first seconds of load than later (its code still in V8's lower tiers, its old generation still growing
 * by full collections), the floor's few functions settle sooner: rounds begun after a fixed 2 s compared a
 * gateway still starting with a floor already warm (bench/postgres-floor.md). Returns each chunk's req/s and
 * CPU µs a request.
 */
async function warmUp(target, request) {
  const chunks = [];
  while (chunks.length < SETTINGS.warmupChunksAtMost) {
    // A round of its own, uncounted: lib/load.mjs measures the server's CPU a request around it.
    const chunk = await runLoad(target, request, { seconds: SETTINGS.warmupSeconds });
    const cpuUsPerRequest = chunk.serverCpuUsPerRequest ?? null;
    chunks.push({ rps: chunk.rps ?? null, cpuUsPerRequest });
    if (cpuUsPerRequest === null) break;
    if (chunks.length < SETTINGS.warmupChunksAtLeast) continue;
    const cheapestBefore = Math.min(...chunks.slice(0, -1).map((c) => c.cpuUsPerRequest));
    if (cpuUsPerRequest >= 0.95 * cheapestBefore) break;
  }
  return chunks;
}

/**
 * The targets side by side on one request: a warm-up each until settled (throughput only: the fixed-rate
 * rounds follow warm targets), then `rounds` rounds, each one run per target, the order reversed every other
 * round (lib/load.mjs's order). `rateOf(target)`: a fixed rate.
 */
async function sideBySide(targets, request, rateOf = null) {
  const busy = await background(targets.map((t) => t.pid));
  const warmups = targets.map(() => null);
  if (!rateOf && SETTINGS.warmupSeconds > 0) {
    for (const [index, target] of targets.entries()) {
      warmups[index] = await warmUp(target, request);
      logWarmUp(target.label, warmups[index]);
    }
  }
  const rounds = targets.map(() => []);
  for (let i = 0; i < SETTINGS.rounds; i++) {
    const order = targets.map((_, index) => index);
    if (i % 2 === 1) order.reverse();
    for (const index of order) {
      const target = targets[index];
      const round = await runLoad(target, request, {
        seconds: SETTINGS.roundSeconds,
        warmupSeconds: rateOf ? SETTINGS.pacedWarmupSeconds : SETTINGS.roundWarmupSeconds,
        ...(rateOf ? { rate: rateOf(target) } : {}),
      });
      rounds[index].push(round);
    }
  }
  return targets.map((target, index) => ({
    target: target.label,
    backgroundCpu: busy,
    warmup: warmups[index],
    ...summarize(rounds[index]),
  }));
}

/** a ÷ b of the medians, and round by round (round i of both ran back to back). */
function ratioOf(a, b, key = 'rps') {
  const rounds = a.rounds
    .map((r, i) => (b.rounds[i]?.[key] ? r[key] / b.rounds[i][key] : null))
    .filter((v) => v !== null);
  return {
    median: a[key] && b[key] ? a[key] / b[key] : null,
    roundByRound: { median: median(rounds), min: Math.min(...rounds), max: Math.max(...rounds), rounds },
  };
}

/* ------------------------------------------------------------------ the run */

const database = { name: `bench_floor_${randomBytes(6).toString('hex')}`, pgbouncer: null, console: null };

function urlOf(name) {
  const url = new URL(ADMIN_PG_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

async function startFloor(label, kind, url, named, routes, gatewayHeaders = false) {
  const file = path.join(tmpRoot, `floor-${kind}${gatewayHeaders ? '-headers' : ''}.json`);
  writeFileSync(file, JSON.stringify({ url, poolSize: SETTINGS.poolSize, named, routes, gatewayHeaders }));
  const port = await freePort();
  // The gateways' V8 thread pool (a CPU setting, docs/deployment.md "CPU for the tail"), not their heap's.
  const nodeArgs = SERVER_NODE_ARGS.filter((arg) => arg.startsWith('--v8-pool-size'));
  const service = await startService(label, [path.join(BENCH, 'lib/pg-floor.mjs'), file, String(port)], {
    port,
    core: 0,
    nodeArgs,
  });
  running.add(service);
  return Object.assign(service, { label, kind, gatewayHeaders, nodeArgs });
}

/** The names of the headers a target answers `request` with, but those every server sends (Date and the connection's). */
async function headerNames(target, request) {
  const response = await fetch(`${target.url}${request.path}`, { headers: headersOf(target) });
  await response.arrayBuffer();
  const own = new Set(['date', 'connection', 'keep-alive']);
  return [...response.headers.keys()].filter((name) => !own.has(name)).sort();
}

async function main() {
  for (const dist of ['server/dist/cli.js', 'client/dist/index.js', 'ledger/dist/index.js']) {
    if (!existsSync(path.join(ROOT, dist))) {
      throw new Error(`${dist} is missing: run \`npm run build\` first`);
    }
  }
  const machine = {
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    pinned: canPin()
      ? 'servers core 0, load generator core 1; PostgreSQL and PgBouncer unpinned'
      : 'no (needs 2 cores and taskset)',
  };
  log(`postgres floor (${SETTINGS.mode}): ${machine.cpu} x${machine.cores}, node ${machine.node}, ${machine.pinned}`);

  // The database of the run, and PgBouncer in front of the server.
  const admin = new pg.Client({ connectionString: ADMIN_PG_URL });
  await admin.connect();
  const serverVersion = (await admin.query('show server_version')).rows[0].server_version;
  await admin.query(`CREATE DATABASE ${database.name}`);
  await admin.end();
  cleanups.push(async () => {
    const c = new pg.Client({ connectionString: ADMIN_PG_URL });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${database.name} WITH (FORCE)`);
    await c.end();
    log(`[pg] dropped database ${database.name}`);
  });
  const directUrl = urlOf(database.name);
  database.pgbouncer = await startPgBouncer(ADMIN_PG_URL, { poolSize: SETTINGS.pgbouncerPoolSize });
  cleanups.push(async () => {
    await database.pgbouncer.remove();
    log('[pg] PgBouncer stopped');
  });
  const poolerUrl = database.pgbouncer.through(directUrl);
  database.console = new pg.Client({ connectionString: database.pgbouncer.through(urlOf('pgbouncer')) });
  await database.console.connect();
  cleanups.push(() => database.console.end());
  const pgbouncerVersion = spawnSync('/usr/sbin/pgbouncer', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0];
  log(
    `[pg] database ${database.name}; ${pgbouncerVersion} on port ${database.pgbouncer.port} (pid ${database.pgbouncer.pid()})`,
  );

  // Loaded as the bench's PostgreSQL scenarios load it: the build's migrate, catalogue, data script.
  const envOf = (url, mode) => ({
    ...gatewayEnv(url, mkdtempSync(path.join(tmpRoot, 'pg-'))),
    DATABASE_POOL_SIZE: String(SETTINGS.poolSize),
    DATABASE_POOL_MODE: mode,
    DATABASE_DIRECT_URL: mode === 'transaction' ? directUrl : '',
  });
  const dataset = await prepareDatabase('pg', envOf(directUrl, 'session'), true);

  const gateways = [];
  // --also-node-args: a direct gateway more for each flag set, beside the one run with --server-node-args.
  const alsoNodeArgs = (options['also-node-args'] ?? '')
    .split('|')
    .map((set) => set.split(' ').filter(Boolean))
    .filter((set) => set.length > 0);
  for (const [label, kind, url, mode, nodeArgs, compared] of [
    ['gateway direct', 'direct', directUrl, 'session', SERVER_NODE_ARGS],
    ['gateway pgbouncer', 'pgbouncer', poolerUrl, 'transaction', SERVER_NODE_ARGS],
    ['gateway direct unnamed', 'direct', directUrl, 'transaction', SERVER_NODE_ARGS],
    ...alsoNodeArgs.map((set) => [`gateway direct ${set.join(' ')}`, 'direct', directUrl, 'session', set, true]),
  ]) {
    const gateway = await launchGateway(label.replace('gateway ', 'pg '), envOf(url, mode), THIS_BUILD, nodeArgs);
    Object.assign(gateway, { label, kind, mode, nodeArgs, compared: compared === true });
    gateway.token = await signIn(gateway, dataset.signedInSeed);
    gateways.push(gateway);
    log(`[pg] ${label} up at ${gateway.url} (pid ${gateway.pid}), DATABASE_POOL_MODE=${mode}`);
  }
  const [direct] = gateways;
  const auth = { authorization: `Bearer ${direct.token}` };
  const newest = await capture(direct, { path: '/v1/movements?limit=1', headers: auth });
  const movementId = newest.items?.[0]?.id;
  if (!movementId) throw new Error('the signed-in account has no movement');
  const requests = [
    {
      id: 'page',
      label: `GET /v1/movements?limit=${SETTINGS.pageLimit}`,
      path: `/v1/movements?limit=${SETTINGS.pageLimit}`,
    },
    { id: 'single', label: 'GET /v1/movements/{id}', path: `/v1/movements/${encodeURIComponent(movementId)}` },
  ];
  // Every gateway answers the same.
  for (const request of requests) {
    request.payload = await capture(direct, { path: request.path, headers: auth });
    for (const gateway of gateways.slice(1)) {
      const answer = await capture(gateway, { path: request.path, headers: headersOf(gateway) });
      if (JSON.stringify(answer) !== JSON.stringify(request.payload)) {
        throw new Error(`${gateway.label}: ${request.path} answers differently from the gateway direct`);
      }
    }
  }
  if (requests[0].payload.items?.length !== SETTINGS.pageLimit) throw new Error('the page is not full');

  // The floor: the gateway's own SQL, compiled by its functions, with the page_info it answered.
  const sql = await gatewaySql(dataset.signedInAddress, movementId);
  const routes = [
    {
      path: '/v1/movements',
      ...sql.page,
      page: { limit: SETTINGS.pageLimit, pageInfo: JSON.stringify(requests[0].payload.page_info) },
    },
    { path: '/v1/movements/:id', ...sql.single },
  ];
  const floors = [
    await startFloor('floor direct', 'direct', directUrl, true, routes),
    await startFloor('floor pgbouncer', 'pgbouncer', poolerUrl, false, routes),
    // The same answer as the gateway's, headers and all: what the gateway spends over it is its own work.
    await startFloor('floor direct + headers', 'direct', directUrl, true, routes, true),
  ];
  for (const floor of floors) {
    // The floor is sent the very request the gateway is, Authorization header and all (about 400 bytes that
    // any server reads and parses, and the floor then ignores); it was once sent none (bench/postgres-floor.md).
    floor.token = direct.token;
    for (const request of requests) {
      const answer = await capture(floor, { path: request.path });
      if (JSON.stringify(answer) !== JSON.stringify(request.payload)) {
        throw new Error(`${floor.label}: ${request.path} answers differently from the gateway`);
      }
      if (floor.gatewayHeaders) {
        const [own, gateway] = [await headerNames(floor, request), await headerNames(direct, request)];
        if (own.join() !== gateway.join()) {
          throw new Error(
            `${floor.label}: ${request.path} answers the headers ${own} where the gateway answers ${gateway}`,
          );
        }
      }
    }
    log(`[pg] ${floor.label} up at ${floor.url} (pid ${floor.pid})`);
  }

  // Each gateway next to the floor it is held to, so that a pair's rounds run one after the other (the host's
  // slow spells, and the idle spell before a round, fall on both alike): the floor with the headers, the
  // gateway direct, the bare floor direct; the gateway through PgBouncer, its floor; then whatever is left.
  const byLabel = (label) => [...gateways, ...floors].find((t) => t.label === label);
  const paired = ['floor direct + headers', 'gateway direct', 'floor direct', 'gateway pgbouncer', 'floor pgbouncer'];
  const targets = [...paired.map(byLabel), ...[...gateways, ...floors].filter((t) => !paired.includes(t.label))];
  const measured = {};
  for (const request of requests) {
    log(`\n${request.label}: ${targets.length} targets, ${SETTINGS.rounds} rounds of ${SETTINGS.roundSeconds} s`);
    const throughput = await sideBySide(targets, request);
    for (const m of throughput) logMeasurement(m);
    // The rate of each connection kind is half its bare floor's.
    const floorOf = Object.fromEntries(
      floors.filter((f) => !f.gatewayHeaders).map((f) => [f.kind, throughput[targets.indexOf(f)]]),
    );
    const rateOf = (target) => Math.max(1, Math.round(floorOf[target.kind].rps / 2));
    log(
      `${request.label}: at half the floor's req/s (direct ${fmt(rateOf(floors[0]))}/s, PgBouncer ${fmt(rateOf(floors[1]))}/s)`,
    );
    const atRate = await sideBySide(targets, request, rateOf);
    for (const m of atRate) logMeasurement(m);
    measured[request.id] = { request, throughput, atRate };
  }

  // The figures.
  const report = Object.fromEntries(
    requests.map((request) => {
      const { throughput, atRate } = measured[request.id];
      const by = (list) => Object.fromEntries(targets.map((t, i) => [t.label, list[i]]));
      const t = by(throughput);
      const r = by(atRate);
      const kinds = {
        direct: { gateway: 'gateway direct', floor: 'floor direct' },
        pgbouncer: { gateway: 'gateway pgbouncer', floor: 'floor pgbouncer' },
      };
      const goals = Object.fromEntries(
        Object.entries(kinds).map(([kind, { gateway, floor }]) => {
          const vsFloor = ratioOf(t[gateway], t[floor]);
          return [
            kind,
            {
              gatewayVsFloor: vsFloor,
              vsFloorPass: vsFloor.median !== null && vsFloor.median >= GOALS.vsFloor,
              rate: r[gateway].rounds[0]?.rate ?? null,
              p99AtHalfFloor: r[gateway].p99,
              floorP99AtHalfFloor: r[floor].p99,
              p99Pass: r[gateway].p99 !== null && r[gateway].p99 < GOALS.p99Ms,
              overGoal: { gateway: r[gateway].overGoal, floor: r[floor].overGoal },
            },
          ];
        }),
      );
      const statements = {
        // The gateway direct, named against unnamed: the rate, and the CPU of the server and the database.
        unnamedVsNamedRps: ratioOf(t['gateway direct unnamed'], t['gateway direct']),
        cpuUs: { named: t['gateway direct'].cpuUsPerRequest, unnamed: t['gateway direct unnamed'].cpuUsPerRequest },
        dbCpuUs: {
          named: t['gateway direct'].dbCpuUsPerRequest,
          unnamed: t['gateway direct unnamed'].dbCpuUsPerRequest,
        },
        atRate: {
          cpuUs: { named: r['gateway direct'].cpuUsPerRequest, unnamed: r['gateway direct unnamed'].cpuUsPerRequest },
          dbCpuUs: {
            named: r['gateway direct'].dbCpuUsPerRequest,
            unnamed: r['gateway direct unnamed'].dbCpuUsPerRequest,
          },
          p99: { named: r['gateway direct'].p99, unnamed: r['gateway direct unnamed'].p99 },
        },
      };
      // --also-node-args: each extra direct gateway against the floor, and against the gateway direct.
      const heaps = gateways
        .filter((g) => g.compared)
        .map((g) => ({
          label: g.label,
          nodeArgs: g.nodeArgs,
          vsFloor: ratioOf(t[g.label], t['floor direct']),
          vsGatewayDirect: ratioOf(t[g.label], t['gateway direct']),
          p99AtHalfFloor: r[g.label].p99,
        }));
      // The gateway direct against the floor answering the same headers; that floor against the bare one.
      const sameAnswer = {
        gatewayVsFloor: ratioOf(t['gateway direct'], t['floor direct + headers']),
        cpuUs: { gateway: t['gateway direct'].cpuUsPerRequest, floor: t['floor direct + headers'].cpuUsPerRequest },
        headersVsBare: ratioOf(t['floor direct + headers'], t['floor direct']),
        p99AtHalfFloor: r['floor direct + headers'].p99,
      };
      const pooler = {
        // The pooler alone: the same (unnamed) statements, through PgBouncer against direct.
        gatewayRps: ratioOf(t['gateway pgbouncer'], t['gateway direct unnamed']),
        floorRps: ratioOf(t['floor pgbouncer'], t['floor direct']),
      };
      return [
        request.id,
        {
          label: request.label,
          path: request.path,
          throughput: t,
          atRate: r,
          goals,
          sameAnswer,
          statements,
          pooler,
          heaps,
        },
      ];
    }),
  );
  printReport(report, targets);
  // Each server's peak RSS over the whole run (VmHWM), the heap flags' other side.
  const peaks = targets.map((t) => ({ label: t.label, nodeArgs: t.nodeArgs ?? [], peakRssMiB: peakRssMiB(t.pid) }));
  console.log(`\npeak RSS over the run: ${peaks.map((p) => `${p.label} ${fmt(p.peakRssMiB)} MiB`).join('; ')}`);

  const minutes = (Date.now() - startedAt) / 60_000;
  const file = path.join(BENCH, 'results', `${stamp}${QUICK ? '-quick' : ''}-postgres-floor.json`);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(
    file,
    `${JSON.stringify(
      {
        date: new Date().toISOString(),
        minutes,
        command: `node bench/postgres-floor.mjs ${process.argv.slice(2).join(' ')}`.trim(),
        machine,
        settings: SETTINGS,
        goals: GOALS,
        build: THIS_BUILD,
        postgres: { version: serverVersion, database: database.name, pgbouncer: pgbouncerVersion },
        targets: targets.map((t) => ({
          label: t.label,
          kind: t.kind,
          mode: t.mode ?? (t.kind === 'direct' ? 'named' : 'unnamed'),
        })),
        sql,
        report,
        peaks,
        ...results,
      },
      null,
      2,
    )}\n`,
  );
  // The repository's `biome check .` covers bench/: leave the file formatted its way (best effort).
  spawnSync(path.join(ROOT, 'node_modules/.bin/biome'), ['format', '--write', file], { cwd: ROOT, stdio: 'ignore' });
  console.log(`\n${minutes.toFixed(1)} min; results: ${path.relative(ROOT, file)}`);
}

function logWarmUp(label, chunks) {
  const cpu = chunks.map((c) => fmt(c.cpuUsPerRequest)).join(' → ');
  log(`  ${label.padEnd(24)} warm-up ${chunks.length} × ${SETTINGS.warmupSeconds} s, CPU µs/req ${cpu}`);
}

function logMeasurement(m) {
  const flag = m.non2xx || m.errors ? `  !! non-2xx ${m.non2xx} errors ${m.errors}` : '';
  log(
    `  ${m.target.padEnd(24)} ${fmt(m.rps).padStart(7)} req/s  p50 ${fmt(m.p50, 2)}  p99 ${fmt(m.p99, 2)} ms  cpu ${fmt(m.cpuUsPerRequest)}  db ${fmt(m.dbCpuUsPerRequest)}  pooler ${fmt(m.poolerCpuUsPerRequest)} µs/req${m.queriesPerRequest === null ? '' : `; ${fmt(m.queriesPerRequest, 2)} queries/req, ${fmt(m.serverUsPerQuery)} µs on the server, ${fmt(m.waitUsPerQuery)} µs waiting a query`}${flag}`,
  );
}

function printReport(report, targets) {
  const pass = (ok) => (ok ? 'PASS' : 'MISS');
  const x = (v) => (v === null || v === undefined ? '-' : v.toFixed(2));
  const percent = (share) => (share === null || share === undefined ? '-' : `${(share * 100).toFixed(2)}%`);
  const rr = (ratio) =>
    `${x(ratio.median)} (round by round ${x(ratio.roundByRound.median)}, ${x(ratio.roundByRound.min)}–${x(ratio.roundByRound.max)})`;
  console.log(
    `\nPostgreSQL reads against their floor, ${SETTINGS.mode} run, ${new Date().toISOString()}: ${SETTINGS.connections} connections, pools of ${SETTINGS.poolSize}, ${SETTINGS.rounds} rounds of ${SETTINGS.roundSeconds} s, medians; CPU µs a request: the server's, this database's backends', PgBouncer's`,
  );
  for (const { label, throughput, atRate, goals, sameAnswer, statements, pooler, heaps } of Object.values(report)) {
    const busy = (list) => {
      const share = Object.values(list)[0]?.backgroundCpu;
      return share === null || share === undefined ? '?' : `${(share * 100).toFixed(0)}%`;
    };
    console.log(
      `\n${label} (other work on the machine before the rounds: ${busy(throughput)} of the CPU; before the fixed-rate rounds: ${busy(atRate)})`,
    );
    console.log(
      `${'target'.padEnd(24)} ${'req/s'.padStart(7)} ${'p50'.padStart(6)} ${'p99'.padStart(6)} ${'CPU'.padStart(5)} ${'DB'.padStart(5)} ${'pool'.padStart(5)}  |  at half floor: ${'rate'.padStart(6)} ${'req/s'.padStart(6)} ${'p50'.padStart(6)} ${'p99'.padStart(6)} ${'CPU'.padStart(5)} ${'DB'.padStart(5)}`,
    );
    for (const target of targets) {
      const t = throughput[target.label];
      const r = atRate[target.label];
      console.log(
        `${target.label.padEnd(24)} ${fmt(t.rps).padStart(7)} ${fmt(t.p50, 2).padStart(6)} ${fmt(t.p99, 2).padStart(6)} ${fmt(t.cpuUsPerRequest).padStart(5)} ${fmt(t.dbCpuUsPerRequest).padStart(5)} ${fmt(t.poolerCpuUsPerRequest).padStart(5)}  |                 ${fmt(r.rounds[0]?.rate).padStart(6)} ${fmt(r.rps).padStart(6)} ${fmt(r.p50, 2).padStart(6)} ${fmt(r.p99, 2).padStart(6)} ${fmt(r.cpuUsPerRequest).padStart(5)} ${fmt(r.dbCpuUsPerRequest).padStart(5)}${t.non2xx || t.errors || r.non2xx || r.errors ? '  !! errors' : ''}`,
      );
    }
    for (const [kind, g] of Object.entries(goals)) {
      console.log(
        `  ${kind.padEnd(9)} gateway ÷ floor ${rr(g.gatewayVsFloor)} (>=${GOALS.vsFloor}) ${pass(g.vsFloorPass)} | p99 at ${fmt(g.rate)}/s ${fmt(g.p99AtHalfFloor, 2)} ms (<${GOALS.p99Ms}) ${pass(g.p99Pass)}, floor's ${fmt(g.floorP99AtHalfFloor, 2)} ms; over ${GOALS.p99Ms} ms ${percent(g.overGoal.gateway)}, floor's ${percent(g.overGoal.floor)}`,
      );
    }
    console.log(
      `  direct, the same answer: gateway ÷ floor + headers ${rr(sameAnswer.gatewayVsFloor)}; CPU µs ${fmt(sameAnswer.cpuUs.gateway)} against ${fmt(sameAnswer.cpuUs.floor)}; floor + headers ÷ floor ${rr(sameAnswer.headersVsBare)}`,
    );
    for (const h of heaps) {
      console.log(
        `  ${h.label}: ÷ floor direct ${rr(h.vsFloor)}, ÷ gateway direct ${rr(h.vsGatewayDirect)} | p99 at half the floor ${fmt(h.p99AtHalfFloor, 2)} ms (<${GOALS.p99Ms}) ${pass(h.p99AtHalfFloor !== null && h.p99AtHalfFloor < GOALS.p99Ms)}`,
      );
    }
    console.log(
      `  statements: unnamed ÷ named req/s ${rr(statements.unnamedVsNamedRps)}; CPU µs named ${fmt(statements.cpuUs.named)} unnamed ${fmt(statements.cpuUs.unnamed)}; DB µs named ${fmt(statements.dbCpuUs.named, 1)} unnamed ${fmt(statements.dbCpuUs.unnamed, 1)}`,
    );
    const seen = (label) => {
      const t = throughput[label];
      return `${label} ${fmt(t.queriesPerRequest, 2)} queries a request, ${fmt(t.serverUsPerQuery)} µs on the server a query, ${fmt(t.waitUsPerQuery)} µs waiting`;
    };
    console.log(`  PgBouncer counted: ${seen('gateway pgbouncer')}; ${seen('floor pgbouncer')}`);
    console.log(
      `  pooler: gateway through PgBouncer ÷ direct unnamed ${rr(pooler.gatewayRps)}; floor through PgBouncer ÷ direct ${rr(pooler.floorRps)}`,
    );
  }
}

main()
  .then(
    () => cleanup(),
    async (error) => {
      console.error(error);
      for (const s of running) log(`--- ${s.name} log:\n${s.log().slice(-3000)}`);
      if (database.pgbouncer) log(`--- PgBouncer log:\n${database.pgbouncer.log().slice(-3000)}`);
      await cleanup();
      process.exitCode = 1;
    },
  )
  .then(() => process.exit());
