#!/usr/bin/env node
/**
 * What each per-request hook costs the gateway on a cheap public read: the same build started several
 * times side by side on one SQLite database (migrated, demo catalogue), each with one part of its
 * per-request work left out (lib/hook-filter.mjs: request ids, security headers, under-pressure, the heap guard, the
 * unsent-answers bound, negotiation, metrics, the connection listeners), one whole and one with all of them
 * out, and the bare Fastify route (lib/bare.mjs) serving the same answer. Their rounds alternate
 * (lib/load.mjs: servers on core 0, autocannon on core 1); the table gives each one's CPU µs per request
 * (median [lowest–highest round]) and what leaving the part out saves against the whole gateway, round by
 * round (the median of the differences of rounds run back to back).
 *
 *   node bench/hook-costs.mjs [--rounds 5] [--round-seconds 2] [--warmup-seconds 1] [--connections 10]
 *                             [--paths /v1/platforms/ETH,/v1/deposit/currencies/USDT/ETH]
 *                             [--variants none,request-ids,…,all] [--build DIR] [--baseline DIR]
 *
 * `--variants`: HOOKS_OFF values (a part's name, several joined with `+`, `none`, `all`), each optionally
 * with Node flags after `@` (`none@--max-semi-space-size=16`); `--build DIR`:
 * another checkout's build (its server/dist) in place of this one's; `--baseline DIR`: one more server, a
 * checkout's whole gateway (any commit: nothing is left out of it), to compare a change with.
 */
// On the workspace's pinned Node, whatever Node started it (before any other import is evaluated).
import './lib/pinned.mjs';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH, freePort, median, ROOT, runNode, startService } from './lib/common.mjs';
import { PARTS } from './lib/hook-filter.mjs';

const { values: options } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    'round-seconds': { type: 'string', default: '2' },
    'warmup-seconds': { type: 'string', default: '1' },
    connections: { type: 'string', default: '10' },
    paths: { type: 'string', default: '/v1/platforms/ETH,/v1/deposit/currencies/USDT/ETH' },
    variants: { type: 'string', default: ['none', ...Object.keys(PARTS), 'all'].join(',') },
    build: { type: 'string', default: ROOT },
    baseline: { type: 'string' },
  },
});
const build = path.resolve(options.build);
const cli = path.join(build, 'server/dist/cli.js');
const paths = options.paths.split(',');
const variants = options.variants.split(',');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'hook-costs-'));
const log = (text) => process.stderr.write(`${text}\n`);

const env = {
  HOST: '127.0.0.1',
  DATABASE_URL: `sqlite://${path.join(tmp, 'gateway.sqlite')}`,
  DATA_DIR: tmp,
  LOG_LEVEL: 'warn',
  CHAIN_ID: 'W',
  CLIENT_IDS: 'waves.exchange,wx.network',
  CORS_ORIGINS: '',
  CONNECTIONS_PER_ADDRESS: '0',
  TOKEN_SIGNING_KEY: generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  PROXY_SEED: 'benchmark proxy seed (not a secret)',
  CURSOR_SECRET: randomBytes(32).toString('hex'),
  OTEL_SDK_DISABLED: '',
  OTEL_TRACES_EXPORTER: '',
  OTEL_EXPORTER_OTLP_ENDPOINT: '',
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
};

const services = [];
async function stopAll() {
  await Promise.all(services.map((s) => s.stop()));
  rmSync(tmp, { recursive: true, force: true });
}
process.once('SIGINT', () => stopAll().then(() => process.exit(130)));

try {
  await runNode([cli, 'migrate'], { env, quiet: true, cwd: build });
  await runNode([cli, 'catalogue', 'load', path.join(build, 'server/demo/catalogue.yaml')], {
    env,
    quiet: true,
    cwd: build,
  });
  const targets = [];
  for (const given of variants) {
    // `VARIANT@FLAGS`: that variant with Node flags (space-separated), e.g. `none@--max-semi-space-size=16`.
    const [variant, flags = ''] = given.split('@');
    const port = await freePort();
    const off = variant === 'none' ? '' : variant.replaceAll('+', ',');
    const service = await startService(`gateway, off: ${variant}`, [cli, 'serve'], {
      port,
      core: 0,
      cwd: build,
      env: { ...env, PORT: String(port), HOOKS_OFF: off },
      nodeArgs: [...flags.split(' ').filter(Boolean), '--import', path.join(BENCH, 'lib/hook-filter.mjs')],
    });
    services.push(service);
    const label = variant === 'none' ? 'gateway (whole)' : `without ${variant}`;
    targets.push({ label: flags ? `${label} ${flags}` : label, service });
  }
  if (options.baseline) {
    const root = path.resolve(options.baseline);
    const port = await freePort();
    const service = await startService('baseline', [path.join(root, 'server/dist/cli.js'), 'serve'], {
      port,
      core: 0,
      cwd: root,
      env: { ...env, PORT: String(port) },
    });
    services.push(service);
    targets.push({ label: `baseline ${path.basename(root)} (whole)`, service });
  }
  // The bare route, with each path's answer as the whole gateway gives it.
  const payloads = {};
  for (const p of paths) {
    const response = await fetch(`${targets[0].service.url}${p}`);
    if (response.status !== 200) throw new Error(`${p}: ${response.status} ${await response.text()}`);
    payloads[p] = await response.json();
  }
  const payloadFile = path.join(tmp, 'payloads.json');
  writeFileSync(payloadFile, JSON.stringify(payloads));
  const barePort = await freePort();
  const bare = await startService('bare', [path.join(BENCH, 'lib/bare.mjs'), payloadFile, String(barePort)], {
    port: barePort,
    core: 0,
  });
  services.push(bare);
  targets.push({ label: 'bare fastify', service: bare });

  const fmt = (v, digits = 1) => (v == null ? '-' : v.toFixed(digits));
  for (const p of paths) {
    const config = {
      targets: targets.map(({ service }) => ({ url: service.url, serverPid: service.pid })),
      path: p,
      connections: Number(options.connections),
      warmupSeconds: Number(options['warmup-seconds']),
      roundSeconds: Number(options['round-seconds']),
      rounds: Number(options.rounds),
    };
    const file = path.join(tmp, 'load.json');
    writeFileSync(file, JSON.stringify(config));
    log(`GET ${p}: ${targets.length} servers, ${config.rounds} rounds of ${config.roundSeconds} s …`);
    const out = JSON.parse(await runNode([path.join(BENCH, 'lib/load.mjs'), file], { core: 1 }));
    const whole = out.targets[0].rounds;
    const bareRounds = out.targets.at(-1).rounds;
    console.log(`\nGET ${p}  (${config.rounds} rounds × ${config.roundSeconds} s, ${config.connections} connections)`);
    console.log(
      `${'server'.padEnd(46)} ${'req/s'.padStart(8)} ${'CPU µs/req [range]'.padStart(24)} ${'saves µs'.padStart(9)} ${'x bare req/s'.padStart(12)}`,
    );
    out.targets.forEach(({ rounds }, i) => {
      const cpu = rounds.map((r) => r.serverCpuUsPerRequest);
      const saves = median(rounds.map((r, k) => whole[k].serverCpuUsPerRequest - r.serverCpuUsPerRequest));
      const rps = median(rounds.map((r) => r.rps));
      const vsBare = median(rounds.map((r, k) => r.rps / bareRounds[k].rps));
      const non2xx = rounds.reduce((s, r) => s + r.non2xx + r.errors, 0);
      console.log(
        `${targets[i].label.padEnd(46)} ${Math.round(rps).toLocaleString('en').padStart(8)} ${`${fmt(median(cpu))} [${fmt(Math.min(...cpu))}–${fmt(Math.max(...cpu))}]`.padStart(24)} ${(i === 0 ? '' : fmt(saves)).padStart(9)} ${fmt(vsBare, 2).padStart(12)}${non2xx ? `  !! ${non2xx} non-2xx or errors` : ''}`,
      );
    });
  }
} finally {
  await stopAll();
}
