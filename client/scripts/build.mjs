#!/usr/bin/env node
// Builds the publishable package into dist/: the client's sources, plus the workspace code it needs
// copied in beside them, so that the package depends on registry packages only.
//
//   dist/index.js, …            the client (src/)
//   dist/generated/             from generated/src: the spec's types (schema), operation metadata, error catalogue,
//                               the calls' shapes
//   dist/ledger/                from ledger/src: hashing, keys from a seed, addresses, the token message
//   dist/openapi.json           the bundled OpenAPI document the client was generated from (exported)
//
// The sources are staged in .stage/ with `@gateway/generated` and `@gateway/ledger` rewritten to relative
// imports, then compiled by tsc (tsconfig.package.json): ES modules with declarations.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const client = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const root = path.resolve(client, '..');
const stage = path.join(client, '.stage');
const src = path.join(stage, 'src');

/** What of generated/src the client uses (not the server's handler map or record schemas). */
const GENERATED = ['schema.ts', 'operations.ts', 'errors.ts', 'calls.ts', 'handler-types.ts'];
const GENERATED_INDEX = `// The part of @gateway/generated the client uses (copied by scripts/build.mjs).
export type { components, operations, paths } from './schema.js';
export * from './operations.js';
export * from './errors.js';
export * from './calls.js';
`;
/** Thrown once the compiler's failure is reported: the build stops there, without a stack trace. */
const failed = Symbol('reported');
const WORKSPACE_IMPORT = /(from\s+|import\s*\(\s*)'@gateway\/(generated|ledger)'/g;

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? files(full) : [full];
  });
}

rmSync(stage, { recursive: true, force: true });
rmSync(path.join(client, 'dist'), { recursive: true, force: true });
try {
  cpSync(path.join(client, 'src'), src, { recursive: true });
  for (const file of files(src)) {
    if (!file.endsWith('.ts')) continue;
    const text = readFileSync(file, 'utf8');
    const rewritten = text.replace(WORKSPACE_IMPORT, (_, keyword, name) => {
      let relative = path
        .relative(path.dirname(file), path.join(src, name, 'index.js'))
        .split(path.sep)
        .join('/');
      if (!relative.startsWith('.')) relative = `./${relative}`;
      return `${keyword}'${relative}'`;
    });
    if (rewritten !== text) writeFileSync(file, rewritten);
  }
  mkdirSync(path.join(src, 'generated'));
  for (const name of GENERATED) cpSync(path.join(root, 'generated/src', name), path.join(src, 'generated', name));
  writeFileSync(path.join(src, 'generated/index.ts'), GENERATED_INDEX);
  cpSync(path.join(root, 'ledger/src'), path.join(src, 'ledger'), { recursive: true });

  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  try {
    execFileSync(process.execPath, [tsc, '-p', path.join(client, 'tsconfig.package.json')], {
      stdio: ['ignore', 'pipe', 'inherit'],
      encoding: 'utf8',
    });
  } catch (error) {
    // The compiler's report, with the staged copies' paths as the sources' own (.stage/src/x.ts is src/x.ts),
    // and nothing more: the stack of this script would only hide it.
    process.stdout.write(String(error.stdout ?? '').replaceAll('.stage/src/', 'src/'));
    console.error(`client build: tsc failed (exit ${error.status ?? error.signal})`);
    process.exitCode = 1;
    throw failed;
  }
  cpSync(path.join(root, 'generated/openapi.json'), path.join(client, 'dist/openapi.json'));

  const left = files(path.join(client, 'dist')).filter((file) =>
    /'@gateway\/(generated|ledger)'/.test(readFileSync(file, 'utf8')),
  );
  if (left.length > 0) throw new Error(`workspace imports left in ${left.join(', ')}`);
} catch (error) {
  if (error !== failed) throw error;
} finally {
  rmSync(stage, { recursive: true, force: true });
}
