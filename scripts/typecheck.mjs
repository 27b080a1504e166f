#!/usr/bin/env node
// `npm run typecheck`: every package's types checked by turbo, each error once and nothing around it.
//
//   npm run typecheck [-- <more turbo options, e.g. --force>]
//
// - A package's typecheck runs after its own build (turbo.json), and only when the builds it depends on
//   succeeded (`--continue=dependencies-successful`): a build that fails has printed its errors, and the
//   typecheck of the same sources (the client's build compiles a staged copy, .stage/) would print them again.
// - Only the logs of the tasks that fail (`--output-logs=errors-only`), without npm's seven lines of
//   "Lifecycle script failed" under each (npm inside turbo runs silent: turbo.json passes npm_config_loglevel).
// - Incremental: each package's `typecheck` keeps tsc's build information in its .cache/ (ignored by git), so
//   a check after an edit reads again only what the edit reaches.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const turbo = path.join(root, 'node_modules/turbo/bin/turbo');
const args = ['run', 'typecheck', '--continue=dependencies-successful', '--output-logs=errors-only'];
const result = spawnSync(process.execPath, [turbo, ...args, ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, npm_config_loglevel: 'silent' },
});
process.exitCode = result.status ?? 1;
