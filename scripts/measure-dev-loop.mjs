#!/usr/bin/env node
// Measures `npm run dev` (scripts/dev.mjs) as an API developer meets it, in a throwaway copy of the checkout
// (scripts/dev-copy.mjs; the checkout is never edited): the time from saving a file to the server answering
// with the change, for a handler edit (a header added to GET /health/live, in server/src/handlers/health.ts)
// and for a spec edit (a response description, in spec/paths/health.yaml, as GET /openapi.json serves it).
// Goals: a handler edit served within 2 s, a spec edit within 5 s. Prints each edit's time, the medians and the
// machine's load (the loop shares the machine: compare runs of one machine at one time).
//
//   node scripts/measure-dev-loop.mjs [--rounds 3] [--verbose]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { copyForDev } from './dev-copy.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: options } = parseArgs({
  options: { rounds: { type: 'string', default: '3' }, verbose: { type: 'boolean', default: false } },
});
const GOALS = { handler: 2000, spec: 5000 };
const HANDLER = 'server/src/handlers/health.ts';
const SPEC = 'spec/paths/health.yaml';
const LIVENESS = "getLiveness: async () => ({ status: 200, body: { status: 'ok' } }),";
const DESCRIPTION = 'description: The process is alive.';

const freePort = () =>
  new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });

/** Polls `check` every 25 ms until it holds; the milliseconds it took (throws after `limitMs`). */
async function timeUntil(check, limitMs) {
  const started = performance.now();
  while (performance.now() - started < limitMs) {
    if (await check().catch(() => false)) return performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`not served within ${limitMs / 1000} s`);
}

/**
 * Waits until the previous edit's work is done, so that each edit is timed alone: after a spec edit, the
 * server's type check, which goes on after the restart (its line); then 2 s without a line from the loop.
 */
async function settled(since = null) {
  const started = Date.now();
  const checked = () => since === null || /server: (type-checked|does not compile|compiled)/.test(output.slice(since));
  while ((!checked() || Date.now() - lastOutputAt < 2000) && Date.now() - started < 180_000) {
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const fmt = (ms) => `${(ms / 1000).toFixed(2)} s`;

const work = mkdtempSync(path.join(os.tmpdir(), 'gateway-dev-measure-'));
const copy = copyForDev(root, path.join(work, 'checkout'));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const dev = spawn(process.execPath, ['scripts/dev.mjs'], {
  cwd: copy,
  env: { ...process.env, PORT: String(port), LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let output = '';
let lastOutputAt = Date.now();
for (const stream of [dev.stdout, dev.stderr]) {
  stream.on('data', (chunk) => {
    output += chunk;
    lastOutputAt = Date.now();
    if (options.verbose) process.stderr.write(chunk);
  });
}
const stop = async () => {
  if (dev.exitCode === null) {
    dev.kill('SIGTERM');
    await new Promise((resolve) => dev.once('exit', resolve));
  }
  rmSync(work, { recursive: true, force: true });
};
process.once('SIGINT', () => stop().then(() => process.exit(130)));

try {
  const handlerFile = path.join(copy, HANDLER);
  const specFile = path.join(copy, SPEC);
  const handler = readFileSync(handlerFile, 'utf8');
  const spec = readFileSync(specFile, 'utf8');
  if (!handler.includes(LIVENESS) || !spec.includes(DESCRIPTION)) {
    throw new Error(`${HANDLER} or ${SPEC} no longer holds the text this script edits: update the script`);
  }
  const live = () => fetch(`${base}/health/live`, { signal: AbortSignal.timeout(2000) });
  const first = await timeUntil(async () => (await live()).ok, 600_000);
  console.log(`npm run dev: first answer ${fmt(first)} after start (a fresh copy: full compile, demo data loaded)`);

  const times = { handler: [], spec: [] };
  let specEditAt = null;
  for (let round = 1; round <= Number(options.rounds); round += 1) {
    const mark = `dev-loop-${round}`;
    await settled(specEditAt);
    writeFileSync(
      handlerFile,
      handler.replace(LIVENESS, LIVENESS.replace('} }),', `}, headers: { 'x-dev-loop': '${mark}' } }),`)),
    );
    times.handler.push(await timeUntil(async () => (await live()).headers.get('x-dev-loop') === mark, 120_000));
    await settled();

    specEditAt = output.length;
    writeFileSync(specFile, spec.replace(DESCRIPTION, `description: The process is alive (${mark}).`));
    const served = async () => (await (await fetch(`${base}/openapi.json`)).text()).includes(`alive (${mark})`);
    times.spec.push(await timeUntil(served, 180_000));
    console.log(`round ${round}: handler edit ${fmt(times.handler.at(-1))}, spec edit ${fmt(times.spec.at(-1))}`);
  }
  writeFileSync(handlerFile, handler);
  writeFileSync(specFile, spec);

  for (const kind of ['handler', 'spec']) {
    const value = median(times[kind]);
    const verdict = value <= GOALS[kind] ? 'MET' : 'MISSED';
    console.log(`${kind} edit served: median ${fmt(value)} (goal ${fmt(GOALS[kind])}) ${verdict}`);
  }
  const [load1] = os.loadavg();
  console.log(`machine: ${os.cpus().length} cores, load average ${load1.toFixed(1)} (other work slows every step)`);
} catch (error) {
  console.error(`measure-dev-loop: ${error.message}\n--- npm run dev said:\n${output.slice(-4000)}`);
  process.exitCode = 1;
} finally {
  await stop();
}
