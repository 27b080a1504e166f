// The run of bench/instructions.mjs (its comment says what it measures), on the pinned Node.
import { execFileSync, spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { excessLines, instructionsByFunction } from './callgrind-functions.mjs';
import { BENCH, freePort, ROOT, runNode } from './common.mjs';

const { values: options } = parseArgs({
  options: {
    only: { type: 'string', default: 'grant,cold' },
    requests: { type: 'string', default: '3000' },
    warmup: { type: 'string', default: '10000' },
    paths: { type: 'string', default: '/v1/platforms/ETH,/v1/deposit/currencies/USDT/ETH' },
    baseline: { type: 'string' },
    functions: { type: 'string' },
  },
});
try {
  execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
} catch {
  console.error('bench/instructions.mjs needs valgrind (Debian: apt-get install valgrind)');
  process.exit(2);
}
const only = new Set(options.only.split(','));
const requests = Number(options.requests);
const warmup = Number(options.warmup);
const tmp = mkdtempSync(path.join(os.tmpdir(), 'instructions-'));
const AUTOCANNON = path.join(ROOT, 'node_modules/autocannon/autocannon.js');
/** One signing key for every gateway of the run. */
const TOKEN_SIGNING_KEY = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const log = (text) => process.stderr.write(`${text}\n`);
const builds = [{ label: 'this build', root: ROOT }];
if (options.baseline)
  builds.push({ label: path.basename(path.resolve(options.baseline)), root: path.resolve(options.baseline) });

const env = (dir) => ({
  HOST: '127.0.0.1',
  DATABASE_URL: `sqlite://${path.join(dir, 'gateway.sqlite')}`,
  DATA_DIR: dir,
  LOG_LEVEL: 'warn',
  CHAIN_ID: 'W',
  CLIENT_IDS: 'waves.exchange,wx.network',
  CORS_ORIGINS: '',
  CONNECTIONS_PER_ADDRESS: '0',
  TOKEN_RATE_LIMIT: '100000',
  SIGN_INS_PER_ADDRESS_HOUR: '0',
  TOKEN_SIGNING_KEY,
  PROXY_SEED: 'benchmark proxy seed (not a secret)',
  CURSOR_SECRET: 'a'.repeat(64),
  OTEL_SDK_DISABLED: 'true',
});

/** Rows of the by-function tables (`--functions N`, reads only); none without it. */
const functionRows = options.functions ? Number(options.functions) : 0;
/** Functions a server's table keeps in the results file, the most instructions first. */
const FUNCTIONS_KEPT = 200;

/**
 * Starts `args` (a Node script and its arguments) under callgrind, instrumentation off; resolves when `port`
 * answers. `byFunction`: Node writes its perf map too, so that `count` can tell where the instructions went.
 */
async function underCallgrind(name, args, { port, cwd = ROOT, extraEnv = {}, byFunction = false }) {
  const out = path.join(tmp, `callgrind.${name.replace(/\W+/g, '-')}.out`);
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--smc-check=all-non-file',
      '--instr-atstart=no',
      `--callgrind-out-file=${out}`,
      process.execPath,
      // Node 24+ also writes a V8 log (`isolate-…-v8.log`) with the perf map: into the run's folder, not the cwd.
      ...(byFunction
        ? [
            '--perf-basic-prof',
            '--no-logfile-per-isolate',
            `--logfile=${path.join(tmp, `v8-${name.replace(/\W+/g, '-')}.log`)}`,
          ]
        : []),
      ...args,
    ],
    // HOST names vgdb's files for callgrind_control (the gateway reads it too): the same for both.
    { cwd, env: { ...process.env, ...extraEnv, HOST: '127.0.0.1' }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const deadline = Date.now() + 300_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode}): ${stderr}`);
    if (Date.now() > deadline) throw new Error(`${name} did not listen within 300 s: ${stderr}`);
    const up = await fetch(`http://127.0.0.1:${port}/`).then(
      () => true,
      () => false,
    );
    if (up) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const control = (flag) =>
    execFileSync('callgrind_control', [flag, String(child.pid)], {
      env: { ...process.env, HOST: '127.0.0.1' },
      stdio: 'ignore',
    });
  return {
    url: `http://127.0.0.1:${port}`,
    /** By function (instructions a request), after a `count` of a server started `byFunction`. */
    functions: null,
    /** Instructions counted while `work` runs (`requests`: how many it sends, for `functions`). */
    async count(work, requests = 1) {
      control('--instr=on');
      await work();
      control('--instr=off');
      control('--dump');
      // The dump is written by the process itself, a moment later.
      const dumped = () => readdirSync(tmp).some((f) => f.startsWith(`${path.basename(out)}.`));
      for (let waited = 0; !dumped() && waited < 60_000; waited += 200) await new Promise((r) => setTimeout(r, 200));
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      const dumps = readdirSync(tmp)
        .filter((f) => f.startsWith(path.basename(out)))
        .map((f) => path.join(tmp, f))
        // The file named at start stays empty: the dumps are numbered beside it.
        .filter((f) => statSync(f).size > 0);
      if (byFunction) {
        const map = `/tmp/perf-${child.pid}.map`;
        this.functions = instructionsByFunction(dumps, map, requests);
        rmSync(map, { force: true });
      }
      let total = 0;
      for (const file of readdirSync(tmp).filter((f) => f.startsWith(path.basename(out)))) {
        const text = readFileSync(path.join(tmp, file), 'utf8');
        total += Number(/^totals: (\d+)/m.exec(text)?.[1] ?? 0);
        rmSync(path.join(tmp, file));
      }
      return total;
    },
  };
}

/**
 * `amount` requests through 10 connections, from autocannon in a process of its own (run inside this one,
 * the counts came out different from the same load sent by another process: 151k against 177–188k
 * instructions a request for the gateway, 155k against 112k for the bare route; the bench's rounds send
 * their load from another process too).
 */
async function load(url, amount, request = {}) {
  const args = [AUTOCANNON, '-j', '-c', '10', '-a', String(amount), '-t', '60'];
  if (request.method) args.push('-m', request.method);
  for (const [name, value] of Object.entries(request.headers ?? {})) args.push('-H', `${name}=${value}`);
  if (request.body !== undefined) args.push('-b', request.body);
  const result = JSON.parse(await runNode([...args, url], { quiet: true }));
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  }
  return result;
}

/** A build's gateway, migrated with its demo catalogue, under callgrind. */
async function gateway(build, name) {
  const dir = mkdtempSync(path.join(tmp, 'db-'));
  const cli = path.join(build.root, 'server/dist/cli.js');
  const e = env(dir);
  await runNode([cli, 'migrate'], { env: e, quiet: true, cwd: build.root });
  await runNode([cli, 'catalogue', 'load', path.join(build.root, 'server/demo/catalogue.yaml')], {
    env: e,
    quiet: true,
    cwd: build.root,
  });
  const port = await freePort();
  return underCallgrind(name, [cli, 'serve'], { port, cwd: build.root, extraEnv: { ...e, PORT: String(port) } });
}

const rows = [];
/** By request kind and server: instructions a request by function (`--functions`). */
const byFunction = {};
const row = (scenario, server, perRequest, note = '') => {
  rows.push({ scenario, server, perRequest, note });
  log(
    `  ${scenario} | ${server}: ${Math.round(perRequest).toLocaleString('en')} instructions${note ? ` (${note})` : ''}`,
  );
};

async function publicReads() {
  for (const p of options.paths.split(',')) {
    let answer;
    for (const build of builds) {
      const server = await gateway(build, `gateway ${build.label}`);
      const response = await fetch(`${server.url}${p}`);
      answer ??= await response.json();
      await load(`${server.url}${p}`, warmup);
      row(
        `GET ${p}`,
        `gateway (${build.label})`,
        (await server.count(() => load(`${server.url}${p}`, requests))) / requests,
      );
    }
    const payloads = path.join(tmp, 'payloads.json');
    writeFileSync(payloads, JSON.stringify({ [p]: answer }));
    for (const headers of [false, true]) {
      const port = await freePort();
      const args = [
        path.join(BENCH, 'lib/bare.mjs'),
        payloads,
        String(port),
        ...(headers ? ['--gateway-headers'] : []),
      ];
      const bare = await underCallgrind(`bare ${headers}`, args, { port });
      await load(`${bare.url}${p}`, warmup);
      const label = headers ? 'bare fastify + the gateway’s headers' : 'bare fastify';
      row(`GET ${p}`, label, (await bare.count(() => load(`${bare.url}${p}`, requests))) / requests);
    }
  }
}

/** The signed-in reads of bench/postgres-floor.mjs over canned documents: each build's gateway, and the floor. */
async function signedInReads() {
  const servers = [
    ...builds.map((build) => ({
      label: `gateway (${build.label})`,
      args: ['gateway', path.join(build.root, 'server/dist')],
    })),
    { label: 'floor (bare fastify, the same SQL)', args: ['floor'] },
    { label: 'floor + the gateway’s headers', args: ['floor-headers'] },
  ];
  for (const kind of ['page', 'single']) {
    const functions = new Map();
    /** A gateway's access token: the floors are sent it too, the very request (they read it and ignore it). */
    let sentToken = null;
    for (const { label, args } of servers) {
      const port = await freePort();
      const out = path.join(tmp, `canned-${port}.json`);
      const [mode, dist] = args;
      const script = [path.join(BENCH, 'lib/canned-reads.mjs'), mode, String(port), out, ...(dist ? [dist] : [])];
      const server = await underCallgrind(`${label} ${kind}`, script, { port, byFunction: functionRows > 0 });
      const { token: issued, id } = JSON.parse(readFileSync(out, 'utf8'));
      sentToken = issued ?? sentToken;
      const token = sentToken;
      const url = `${server.url}${kind === 'page' ? '/v1/movements?limit=100' : `/v1/movements/${id}`}`;
      const request = token ? { headers: { authorization: `Bearer ${token}` } } : {};
      await load(url, warmup, request);
      const total = await server.count(() => load(url, requests, request), requests);
      if (server.functions) functions.set(args[0] === 'gateway' ? label : args[0], server.functions);
      row(
        kind === 'page' ? 'GET /v1/movements?limit=100 (canned)' : 'GET /v1/movements/{id} (canned)',
        label,
        total / requests,
      );
    }
    if (functionRows > 0) {
      const floor = functions.get('floor');
      const gatewayLabel = servers[0].label;
      const scenario = kind === 'page' ? 'GET /v1/movements?limit=100 (canned)' : 'GET /v1/movements/{id} (canned)';
      for (const [label, table] of [
        [gatewayLabel, functions.get(gatewayLabel)],
        ['floor + the gateway’s headers', functions.get('floor-headers')],
      ]) {
        log(`\n  ${scenario}: where ${label} spends more than the floor (instructions a request: over, it, floor)`);
        for (const line of excessLines(table, floor, functionRows)) log(`  ${line}`);
      }
      byFunction[kind] = Object.fromEntries(
        [...functions].map(([label, table]) => [
          label,
          Object.fromEntries(
            [...table]
              .sort((a, b) => b[1] - a[1])
              // The functions that count: the long tail of natives run once is thousands of rows of nothing.
              .slice(0, FUNCTIONS_KEPT)
              .map(([name, n]) => [name, Math.round(n)]),
          ),
        ]),
      );
    }
  }
}

/** A known account's password (a fixed seed), as the form body of its grant. */
async function grantBody() {
  const out = await runNode(
    [
      '--input-type=module',
      '-e',
      `import { passwordFor, signerFromSeed } from '@gateway/client';
       const s = signerFromSeed('instructions bench');
       const password = await passwordFor(s, 'W', 'waves.exchange', Math.floor(Date.now() / 1000) + 5 * 86400);
       process.stdout.write(new URLSearchParams({ grant_type: 'password', scope: 'general', client_id: 'waves.exchange', username: s.publicKey, password }).toString());`,
    ],
    { cwd: BENCH },
  );
  return out;
}

async function grants() {
  const body = await grantBody();
  const request = { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body };
  const grantsCounted = Math.max(500, Math.round(requests / 3));
  for (const build of builds) {
    const server = await gateway(build, `grant ${build.label}`);
    await load(`${server.url}/v1/oauth2/token`, Math.round(warmup / 5), request);
    const total = await server.count(() => load(`${server.url}/v1/oauth2/token`, grantsCounted, request));
    row('POST /v1/oauth2/token password, known account', `gateway (${build.label})`, total / grantsCounted);
    // The crypto alone: the loop at two lengths, whole processes counted; the difference is per grant.
    const counts = [];
    for (const n of [grantsCounted, grantsCounted * 3]) {
      const out = path.join(tmp, 'callgrind.crypto.out');
      execFileSync(
        'valgrind',
        [
          '--tool=callgrind',
          '--smc-check=all-non-file',
          `--callgrind-out-file=${out}`,
          process.execPath,
          path.join(BENCH, 'lib/crypto-instructions.mjs'),
          build.root,
          String(n),
          body,
        ],
        { stdio: 'ignore' },
      );
      counts.push(Number(/^totals: (\d+)/m.exec(readFileSync(out, 'utf8'))?.[1]));
      rmSync(out);
    }
    const crypto = (counts[1] - counts[0]) / (grantsCounted * 2);
    row(
      'POST /v1/oauth2/token password, known account',
      `crypto alone (${build.label})`,
      crypto,
      `the grant at ${(crypto / (total / grantsCounted)).toFixed(2)} of it`,
    );
  }
}

async function coldGrants() {
  for (const build of builds) {
    const server = await gateway(build, `cold ${build.label}`);
    const signIn = (n, seed) =>
      runNode(
        [path.join(BENCH, 'lib/sign-in-many.mjs'), server.url, String(n), seed, path.join(tmp, 'accounts.json')],
        {
          quiet: true,
        },
      );
    const counted = Math.max(200, Math.round(requests / 10));
    await signIn(Math.round(warmup / 15), `warm-up ${Date.now()}`);
    const total = await server.count(() => signIn(counted, `counted ${Date.now()}`));
    row('POST /v1/oauth2/token password, new accounts', `gateway (${build.label})`, total / counted);
  }
}

try {
  if (only.has('public')) {
    log(
      'public: counted from this script, these disagree with the same servers counted from a shell (bench/README.md)',
    );
    await publicReads();
  }
  if (only.has('grant')) await grants();
  if (only.has('cold')) await coldGrants();
  if (only.has('reads')) await signedInReads();
  const width = Math.max(...rows.map((r) => r.scenario.length));
  const serverWidth = Math.max(...rows.map((r) => r.server.length));
  console.log(`\n${'scenario'.padEnd(width)}  ${'server'.padEnd(serverWidth)}  instructions a request`);
  for (const r of rows) {
    console.log(
      `${r.scenario.padEnd(width)}  ${r.server.padEnd(serverWidth)}  ${Math.round(r.perRequest).toLocaleString('en').padStart(12)}  ${r.note}`,
    );
  }
  const file = path.join(
    BENCH,
    'results',
    `${new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19)}-instructions.json`,
  );
  writeFileSync(file, `${JSON.stringify({ requests, warmup, node: process.version, rows, byFunction }, null, 2)}\n`);
  console.log(`results: ${path.relative(ROOT, file)}`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
