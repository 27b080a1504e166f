/**
 * The Node.js lines the project supports, and a Node of each from the npm registry.
 *
 * The scripts run on the pinned line: the `node` devDependency (an exact version) puts its `node` first on
 * the path of every npm script, whatever Node the machine has (Node 20 on ours). The other supported lines
 * are tested by CI's smoke run (scripts/smoke.mjs) on the exact versions below, installed on demand from the
 * registry's `node-<platform>-<arch>` packages (real binaries, the ones the `node` package itself installs)
 * into node_modules/.cache/node-lines/.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The pinned Node's version: the root package.json's `node` devDependency. */
export const PINNED = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).devDependencies.node;

/**
 * Every supported line and the version tested on it: the active LTS (pinned) and the maintenance LTS lines.
 * Node 20 reached its end of life in April 2026; the server refuses it (server/src/cli.ts).
 */
export const LINES = [
  { line: Number(PINNED.split('.')[0]), version: PINNED, pinned: true },
  { line: 24, version: '24.21.0', pinned: false },
  { line: 22, version: '22.23.3', pinned: false },
];

/** The registry package holding this platform's Node binary (as the `node` package's installer names it). */
export function binaryPackage(platform = process.platform, arch = process.arch) {
  const os = platform === 'win32' ? 'win' : platform;
  return `${os === 'darwin' && arch === 'arm64' ? 'node-bin' : 'node'}-${os}-${arch}`;
}

/**
 * The path of a `node` binary of `version`, installed from the registry into the cache on first use (a few
 * seconds: one package of about 30 MB); `say` reports the install.
 */
export function nodeBinary(version, say = () => {}) {
  const dir = path.join(root, 'node_modules/.cache/node-lines', version);
  const pkg = binaryPackage();
  const bin = path.join(dir, 'node_modules', pkg, 'bin', process.platform === 'win32' ? 'node.exe' : 'node');
  if (existsSync(bin)) return bin;
  say(`installing Node ${version} (${pkg}) from the npm registry`);
  mkdirSync(dir, { recursive: true });
  execFileSync(
    'npm',
    ['install', '--prefix', dir, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', `${pkg}@${version}`],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  if (!existsSync(bin)) throw new Error(`the package ${pkg}@${version} holds no ${bin}`);
  return bin;
}
