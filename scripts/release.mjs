#!/usr/bin/env node
/**
 * `npm run release -- <version>`: releases the API as <version>.
 * 1. checks <version> is above the last release and that the current API is compatible with it (spec:compat's
 *    rules), or that <version> raises the major version;
 * 2. sets the version everywhere it lives: spec/openapi.yaml info.version, the client, server, ledger and
 *    generated packages (and their entries in package-lock.json);
 * 3. regenerates (npm run generate) and writes spec/released/<version>.json, the document later versions are
 *    compared with;
 * 4. reminds you to record the changes in CHANGELOG.md (it says so, and what changed, when the section is missing).
 * Nothing is committed: review and commit the result.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  checkCompatibility,
  compareVersions,
  PACKAGES,
  releasedDir,
  releasedVersions,
  report,
} from './spec-compat.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const SPEC = path.join(root, 'spec/openapi.yaml');
const BUNDLE = path.join(root, 'generated/openapi.json');

function fail(message) {
  console.error(`release: ${message}`);
  process.exit(1);
}

const version = process.argv[2];
if (!version || !/^\d+\.\d+\.\d+$/.test(version)) fail('usage: npm run release -- <major.minor.patch>');

const versions = releasedVersions();
const last = versions[versions.length - 1];
if (last && compareVersions(version, last) <= 0) fail(`${version} is not above the last release, ${last}`);

// 1. The API as it is now (bundled from spec/), under the new version, against the last release.
execFileSync(process.execPath, [path.join(root, 'scripts/generate.mjs')], { stdio: 'inherit' });
if (last) {
  const base = JSON.parse(readFileSync(path.join(releasedDir, `${last}.json`), 'utf8'));
  const head = JSON.parse(readFileSync(BUNDLE, 'utf8'));
  head.info.version = version;
  const r = checkCompatibility(base, head);
  console.log(report(r));
  if (!r.ok) fail(`not released: breaking changes need a new major version (${Number(last.split('.')[0]) + 1}.0.0)`);
  const [maj, min] = version.split('.').map(Number);
  const [lmaj, lmin] = last.split('.').map(Number);
  if (r.nonBreaking.length && maj === lmaj && min === lmin)
    console.warn(`release: warning: ${version} adds to the API; a minor version (${lmaj}.${lmin + 1}.0) says so`);
}

// 2. The version everywhere.
const spec = readFileSync(SPEC, 'utf8');
const specWithVersion = spec.replace(/^(info:\n(?:[ ]{2}.*\n)*?[ ]{2}version: ).*$/m, `$1${version}`);
if (specWithVersion === spec && !spec.includes(`  version: ${version}\n`))
  fail('info.version not found in spec/openapi.yaml');
writeFileSync(SPEC, specWithVersion);
for (const dir of PACKAGES) {
  const file = path.join(root, dir, 'package.json');
  const text = readFileSync(file, 'utf8');
  writeFileSync(file, text.replace(/("version":\s*")[^"]*(")/, `$1${version}$2`));
}
const lockFile = path.join(root, 'package-lock.json');
const lock = JSON.parse(readFileSync(lockFile, 'utf8'));
for (const dir of PACKAGES) if (lock.packages?.[dir]) lock.packages[dir].version = version;
writeFileSync(lockFile, `${JSON.stringify(lock, null, 2)}\n`);

// 3. Regenerate and keep the released document.
execFileSync(process.execPath, [path.join(root, 'scripts/generate.mjs')], { stdio: 'inherit' });
mkdirSync(releasedDir, { recursive: true });
copyFileSync(BUNDLE, path.join(releasedDir, `${version}.json`));
console.log(`release: ${version} set in spec/openapi.yaml and ${PACKAGES.map((p) => `${p}/package.json`).join(', ')}`);
console.log(`release: wrote spec/released/${version}.json`);

// 4. The change log.
const changelog = path.join(root, 'CHANGELOG.md');
if (!existsSync(changelog) || !readFileSync(changelog, 'utf8').includes(`## [${version}]`)) {
  console.log(`release: reminder: CHANGELOG.md has no "## [${version}]" section; add one listing the changes above.`);
}
console.log('release: review and commit (git add -A && git commit), then tag if you wish.');
