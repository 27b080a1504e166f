#!/usr/bin/env node
// Measures `npm run typecheck` as an API developer meets it after a spec edit: cold (turbo's cache ignored,
// tsc's incremental build information removed), then after a one-line spec edit that keeps the types valid
// (a response description), then after a one-line edit that breaks the client and the server (the token's
// `expires_in` becomes a string). For each: the wall time, the exit code, the compiler errors printed (all,
// and distinct once `.stage/src/` is read as `src/`), the stack-trace lines and the lines of output.
// The edits are made in spec/ and undone (and generated/ regenerated) at the end, whatever happens.
//
//   node scripts/measure-typecheck.mjs [--keep-logs dir]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: options } = parseArgs({ options: { 'keep-logs': { type: 'string' } } });
const EDITS = {
  description: {
    file: 'spec/paths/health.yaml',
    from: 'description: The process is alive.',
    to: 'description: The process is alive (edited).',
  },
  breaking: {
    file: 'spec/components/schemas/token.yaml',
    from: 'expires_in:\n      type: integer',
    to: 'expires_in:\n      type: string',
  },
};

function typecheck(name, extra = []) {
  const started = performance.now();
  const run = spawnSync('npm', ['run', 'typecheck', '--', ...extra], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1', FORCE_COLOR: '0', NO_COLOR: '1' },
    maxBuffer: 64 * 1024 * 1024,
  });
  const seconds = (performance.now() - started) / 1000;
  const output = `${run.stdout}${run.stderr}`;
  if (options['keep-logs']) {
    mkdirSync(options['keep-logs'], { recursive: true });
    writeFileSync(path.join(options['keep-logs'], `${name}.log`), output);
  }
  const lines = output.split('\n');
  const errors = lines.filter((line) => /error TS\d+/.test(line));
  // A task's prefix (`@gateway/client:build: `) and the staged copy's folder do not make another error.
  const distinct = new Set(errors.map((line) => line.replace(/^\S+:\w+: /, '').replace('.stage/src/', 'src/')));
  return {
    run: name,
    seconds: seconds.toFixed(1),
    exit: run.status,
    errors: errors.length,
    distinct: distinct.size,
    stackLines: lines.filter((line) => /^(\S+: )?\s+at .+:\d+:\d+\)?$/.test(line)).length,
    outputLines: lines.length,
  };
}

function edit({ file, from, to }) {
  const full = path.join(root, file);
  const text = readFileSync(full, 'utf8');
  if (!text.includes(from)) throw new Error(`${file} no longer holds ${JSON.stringify(from)}`);
  writeFileSync(full, text.replace(from, to));
}

const rows = [];
try {
  // Cold: no incremental build information (each package's .cache/) and turbo's cache ignored.
  for (const dir of ['client', 'generated', 'ledger', 'react', 'server', 'test', 'examples/wallet']) {
    rmSync(path.join(root, dir, '.cache'), { recursive: true, force: true });
  }
  rows.push(typecheck('cold', ['--force']));
  rows.push(typecheck('unchanged'));
  edit(EDITS.description);
  rows.push(typecheck('description edit'));
  edit(EDITS.breaking);
  rows.push(typecheck('breaking edit'));
} finally {
  execFileSync('git', ['checkout', '--', ...new Set(Object.values(EDITS).map((e) => e.file))], { cwd: root });
  execFileSync(process.execPath, [path.join(root, 'scripts/generate.mjs')], { cwd: root, stdio: 'ignore' });
}
console.table(rows);
console.log(
  `load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')} on ${os.cpus().length} cores`,
);
