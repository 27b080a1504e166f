// A throwaway copy of what `npm run dev` reads and writes (the spec, the generator, the ledger, generated/ and
// the server, with their builds), sharing the checkout's installed packages: the dev loop's test and its
// measurement edit the copy, never the checkout, and other test runs reading the checkout's builds are safe.
import { cpSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';

const FILES = ['package.json', 'tsconfig.base.json'];
const FOLDERS = ['scripts', 'spec', 'generated', 'ledger', 'server'];
/** The workspace packages the copy links to its own folders (not to the checkout's). */
const WORKSPACE_SCOPE = '@gateway';

/** Copies the checkout at `root` into `dir` (created); returns `dir`. */
export function copyForDev(root, dir) {
  mkdirSync(dir, { recursive: true });
  for (const file of FILES) cpSync(path.join(root, file), path.join(dir, file));
  for (const folder of FOLDERS) {
    cpSync(path.join(root, folder), path.join(dir, folder), {
      recursive: true,
      // Timestamps kept: the compilers' incremental build information is checked against them (dev-compiler.mjs).
      preserveTimestamps: true,
      filter: (source) => !['node_modules', 'data-dev', '.turbo'].includes(path.basename(source)),
    });
    // A package's own installed dependencies (server/node_modules), shared.
    const own = path.join(root, folder, 'node_modules');
    if (readdirSync(path.join(root, folder)).includes('node_modules')) {
      symlinkSync(own, path.join(dir, folder, 'node_modules'));
    }
  }
  // The root's packages, one link each, but the workspace's own, which lead to the copy's folders.
  const modules = path.join(dir, 'node_modules');
  mkdirSync(path.join(modules, WORKSPACE_SCOPE), { recursive: true });
  for (const name of readdirSync(path.join(root, 'node_modules'))) {
    if (name !== WORKSPACE_SCOPE) symlinkSync(path.join(root, 'node_modules', name), path.join(modules, name));
  }
  for (const name of readdirSync(path.join(root, 'node_modules', WORKSPACE_SCOPE))) {
    if (FOLDERS.includes(name)) symlinkSync(path.join('..', '..', name), path.join(modules, WORKSPACE_SCOPE, name));
  }
  return dir;
}
