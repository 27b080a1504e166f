#!/usr/bin/env node
/**
 * `npm run smoke [-- --line 24]`: the README's promises on each supported Node line other than the pinned
 * one (scripts/node-lines.mjs), on the builds `npm test` (or `npm run build`) made: the server started as
 * `npm start` starts it, a grant, a page, an import while serving, the CLI's exit codes and its driver
 * through idle collections (test/vitest.smoke.config.ts), then the client's and the React hooks' suites.
 * Each line's Node is installed from the npm registry on first use. .ci/run runs it after `npm test`; the jobs
 * run two at a time.
 * Exit code: 0 when every job passed on every line, 1 otherwise.
 */
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { LINES, nodeBinary } from './node-lines.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const VITEST = path.join(root, 'node_modules/vitest/vitest.mjs');

const { values } = parseArgs({ options: { line: { type: 'string', multiple: true } } });
const wanted = values.line?.map(Number);
const lines = LINES.filter((l) => (wanted ? wanted.includes(l.line) : !l.pinned));
if (lines.length === 0) {
  console.error(`smoke: no supported line among ${values.line}; the lines: ${LINES.map((l) => l.line).join(', ')}`);
  process.exit(2);
}

/** The jobs of a line: a name, the folder vitest runs in, and its arguments. */
const JOBS = [
  { name: 'README and CLI', cwd: 'test', args: ['run', '--config', 'vitest.smoke.config.ts'] },
  { name: 'client suite', cwd: 'client', args: ['run'] },
  { name: 'react suite', cwd: 'react', args: ['run'] },
];

/** Runs one job on `node`, its output kept and printed only when it fails. */
function runJob(node, job) {
  const started = performance.now();
  return new Promise((resolve) => {
    // That line's Node first on the path too, for whatever the job starts by name.
    const env = { ...process.env, PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH}`, NO_COLOR: '1' };
    const child = spawn(node, [VITEST, ...job.args], { cwd: path.join(root, job.cwd), env });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code, signal) => {
      const tests = /Tests\s+(.+)/.exec(output)?.[1]?.trim() ?? '';
      resolve({ ok: code === 0, code: code ?? signal, seconds: (performance.now() - started) / 1000, tests, output });
    });
  });
}

let failed = 0;
/** Every line's Node first (installed one after the other), then its jobs. */
const runs = [];
for (const { version } of lines) {
  try {
    const node = nodeBinary(version, (text) => console.log(`smoke: ${text}`));
    for (const job of JOBS) runs.push({ version, node, job });
  } catch (error) {
    console.error(`smoke: Node ${version} could not be installed: ${error.message}`);
    failed++;
  }
}
// Two jobs at a time (one fewer than the cores on larger machines): each is one vitest process whose tests mostly wait on
// what they start, and they share nothing but the builds they read.
const results = new Array(runs.length);
let taken = 0;
const worker = async () => {
  while (taken < runs.length) {
    const i = taken++;
    const { version, job, node } = runs[i];
    const result = await runJob(node, job);
    results[i] = result;
    if (!result.ok) {
      failed++;
      console.error(`\nsmoke: ${job.name} failed on Node ${version}:\n${result.output}`);
    }
  }
};
await Promise.all(Array.from({ length: Math.max(2, availableParallelism() - 1) }, worker));
const rows = runs.map(({ version, job }, i) => {
  const result = results[i];
  return `  Node ${version.padEnd(8)}  ${job.name.padEnd(15)}  ${result.ok ? 'passed' : `FAILED (exit ${result.code})`}  ${result.seconds.toFixed(1).padStart(5)} s  ${result.tests}`;
});
console.log(`smoke runs on the other supported Node lines:\n${rows.join('\n')}`);
process.exit(failed === 0 ? 0 : 1);
