/**
 * The suites here test the workspaces' builds (server/dist, client/dist, ...), not their sources: run alone
 * (`npm test -w test -- contract`) after an edit, they would test the previous build and pass or fail for
 * the wrong reason. So the run starts by comparing each build with its sources and, when a source (or the
 * spec the generated code comes from) is newer than everything built from it, builds first through turbo,
 * saying why. Under `npm test` turbo has built everything already and nothing is done.
 *
 * Turbo rebuilds by content: a source touched but unchanged is a cache hit that leaves the build's files as
 * they were, older than the source. A build this setup ran is therefore stamped (a file outside the build,
 * so that nothing packs it), and counts as of its stamp when that is newer.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Each build the suites use: its output folder and what it is built from (turbo.json's build inputs). */
export const BUILDS: { name: string; output: string; sources: string[] }[] = [
  { name: 'generated', output: 'generated/dist', sources: ['spec', 'generated/src', 'generated/package.json'] },
  { name: 'ledger', output: 'ledger/dist', sources: ['ledger/src', 'ledger/package.json'] },
  { name: 'client', output: 'client/dist', sources: ['client/src', 'client/package.json', 'client/scripts'] },
  { name: 'react', output: 'react/dist', sources: ['react/src', 'react/package.json', 'react/scripts'] },
  { name: 'server', output: 'server/dist', sources: ['server/src', 'server/package.json'] },
  {
    name: 'wallet',
    output: 'examples/wallet/dist',
    sources: ['examples/wallet/src', 'examples/wallet/index.html', 'examples/wallet/vite.config.ts'],
  },
];

/** The newest file under `target` (a file or a folder), or null when there is none. */
export function newestFile(target: string): { file: string; mtimeMs: number } | null {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(target);
  } catch {
    return null;
  }
  if (!stat.isDirectory()) return { file: target, mtimeMs: stat.mtimeMs };
  let newest: { file: string; mtimeMs: number } | null = null;
  for (const entry of readdirSync(target)) {
    if (entry === 'node_modules' || entry === '.stage') continue;
    const found = newestFile(path.join(target, entry));
    if (found && (!newest || found.mtimeMs > newest.mtimeMs)) newest = found;
  }
  return newest;
}

/** Where a build's stamp is kept: the time this setup last built it. */
const stampsIn = (base: string) => path.join(base, 'node_modules/.cache/gateway-fresh-build');
const stampOf = (build: { name: string }, base: string) => path.join(stampsIn(base), build.name);

/** Why `build` is stale (a sentence), or null when its output (or its stamp) is newer than every source. */
export function staleness(build: (typeof BUILDS)[number], base = root): string | null {
  const output = newestFile(path.join(base, build.output));
  if (!output) return `${build.output} is missing`;
  const builtAt = Math.max(output.mtimeMs, newestFile(stampOf(build, base))?.mtimeMs ?? 0);
  for (const source of build.sources) {
    const newest = newestFile(path.join(base, source));
    if (newest && newest.mtimeMs > builtAt) {
      return `${path.relative(base, newest.file)} is newer than ${build.output}`;
    }
  }
  return null;
}

export default function setup() {
  const stale = BUILDS.map((build) => staleness(build)).filter((why): why is string => why !== null);
  if (stale.length === 0) return;
  console.log(`[fresh-build] ${stale.join('; ')}: building before testing (turbo run build)`);
  const built = spawnSync(
    path.join(root, 'node_modules/.bin/turbo'),
    ['run', 'build', '--filter=@gateway/contract-tests^...', '--output-logs=errors-only'],
    { cwd: root, stdio: 'inherit', env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' } },
  );
  if (built.status !== 0) {
    throw new Error(`the build failed (exit ${built.status}): the suites would test a stale build; fix it first`);
  }
  mkdirSync(stampsIn(root), { recursive: true });
  for (const build of BUILDS) writeFileSync(stampOf(build, root), `${new Date().toISOString()}\n`);
}
