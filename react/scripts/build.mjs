#!/usr/bin/env node
// Builds the publishable package into dist/: ES modules with declarations, compiled by tsc from src/.
// It imports `@gateway/client` (a peer: the app's own client) and registry packages only.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
rmSync(path.join(dir, 'dist'), { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
try {
  execFileSync(process.execPath, [tsc, '-p', path.join(dir, 'tsconfig.package.json')], { stdio: 'inherit' });
} catch (error) {
  // The compiler has printed its report: the stack of this script would only hide it.
  console.error(`react build: tsc failed (exit ${error.status ?? error.signal})`);
  process.exit(1);
}
const left = readdirSync(path.join(dir, 'dist'), { recursive: true, encoding: 'utf8' }).filter((file) =>
  /from '@gateway\/(generated|ledger)'/.test(readFileSync(path.join(dir, 'dist', file), 'utf8')),
);
if (left.length > 0) throw new Error(`workspace imports left in ${left.join(', ')}`);
