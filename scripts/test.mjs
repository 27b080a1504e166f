#!/usr/bin/env node
// `npm test`: finds or starts the PostgreSQL the tests run on once for the whole run (scripts/test-postgres.mjs),
// then runs every workspace's tests through turbo with TEST_DATABASE_URL naming it (docs/testing.md).
//
//   npm test                                      every workspace: client, react and ledger first (seconds),
//                                                 then server and test side by side (minutes)
//   npm test -- --filter=@gateway/client          one workspace (turbo's options pass through)
//   npm test -- server/test/cli.test.ts           one file, or a folder (test/cluster): its workspace alone,
//                                                 vitest given the path within it; several paths may be given
//   npm test -- --filter=@gateway/server -- -t 'refresh'   after a second `--`: vitest's own options
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findOrStartPostgres } from './test-postgres.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The workspaces that have tests, by folder. */
const TESTED = ['server', 'test', 'client', 'react', 'ledger'];
/** The workspaces whose suites take seconds, and the two that take minutes (docs/testing.md has the times). */
const SMALL = ['@gateway/client', '@gateway/react', '@gateway/ledger'];
const BIG = ['@gateway/server', '@gateway/contract-tests'];

/**
 * Paths given on the command line (before any `--`) turned into turbo runs: one per workspace they fall in, that
 * workspace filtered and vitest given the paths within it. Without paths: one run with the arguments as they are.
 */
export function runsFor(args, cwd = process.cwd()) {
  const split = args.indexOf('--');
  const ours = split === -1 ? args : args.slice(0, split);
  const vitestArgs = split === -1 ? [] : args.slice(split + 1);
  const turboArgs = [];
  /** Workspace folder → paths within it. */
  const paths = new Map();
  for (const arg of ours) {
    const full = path.resolve(cwd, arg);
    const [folder, ...rest] = path.relative(root, full).split(path.sep);
    if (arg.startsWith('-') || !existsSync(full) || !TESTED.includes(folder)) {
      turboArgs.push(arg);
      continue;
    }
    if (!paths.has(folder)) paths.set(folder, []);
    if (rest.length > 0) paths.get(folder).push(rest.join('/'));
  }
  if (paths.size === 0) {
    // The whole run: the small suites first, alone on the machine for their few seconds (their tests wait on
    // timers of milliseconds to seconds, which starve beside the two big suites' workers on 2 cores), then the
    // server's and the contract tests side by side.
    if (turboArgs.some((arg) => arg.startsWith('--filter') || arg === '-F')) return [{ turboArgs, vitestArgs }];
    return [SMALL, BIG].map((names) => ({
      turboArgs: [...turboArgs, ...names.map((name) => `--filter=${name}`)],
      vitestArgs,
    }));
  }
  return [...paths].map(([folder, within]) => {
    const { name } = JSON.parse(readFileSync(path.join(root, folder, 'package.json'), 'utf8'));
    return { turboArgs: [...turboArgs, `--filter=${name}`], vitestArgs: [...within, ...vitestArgs] };
  });
}

let interrupted = false;

/** turbo's arguments for a run. turbo refuses a flag given twice: `--continue` typed on the command line is not added again. */
export function turboArgsOf({ turboArgs, vitestArgs }) {
  // --continue: a failure in one workspace does not stop the others' suites (the exit code still says it).
  const ours = ['--log-order=grouped', '--continue'].filter(
    (flag) => !turboArgs.some((arg) => arg.split('=')[0] === flag.split('=')[0]),
  );
  const args = ['run', 'test', ...ours, ...turboArgs];
  if (vitestArgs.length > 0) args.push('--', ...vitestArgs);
  return args;
}

function turbo(run, env) {
  const args = turboArgsOf(run);
  const child = spawn(path.join(root, 'node_modules/.bin/turbo'), args, { stdio: 'inherit', env });
  // Turbo stops its tasks on these; the embedded server (if any) is stopped by its own hooks.
  const forward = (signal) => {
    interrupted = true;
    child.kill(signal);
  };
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, forward);
  return new Promise((resolve) =>
    child.on('exit', (code, signal) => {
      for (const s of ['SIGINT', 'SIGTERM']) process.off(s, forward);
      resolve(code ?? (signal ? 1 : 0));
    }),
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  let postgres;
  try {
    postgres = await findOrStartPostgres();
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
  // Each workspace's failures, a line each (scripts/vitest-failures.mjs), printed after all the output.
  const failuresDir = mkdtempSync(path.join(tmpdir(), 'gateway-test-'));
  const failuresFile = path.join(failuresDir, 'failures.txt');
  const env = { ...process.env, TEST_DATABASE_URL: postgres.url, TEST_FAILURES_FILE: failuresFile };
  let code = 0;
  // Paths are resolved from where `npm test` was typed (npm runs the script from the root).
  for (const run of runsFor(process.argv.slice(2), process.env.INIT_CWD ?? process.cwd())) {
    code = (await turbo(run, env)) || code;
    if (interrupted) break;
  }
  await postgres.stop();
  const failures = existsSync(failuresFile) ? readFileSync(failuresFile, 'utf8').trim().split('\n') : [];
  rmSync(failuresDir, { recursive: true, force: true });
  if (failures.length > 0) {
    console.error(
      `\n${failures.length} failed (each workspace's output above has the details):\n${failures.map((line) => `  ${line}`).join('\n')}`,
    );
  }
  process.exit(code);
}
