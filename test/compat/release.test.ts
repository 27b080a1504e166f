/**
 * `npm run release -- <version>` refuses, in one line and with exit 1, before it changes anything: no version
 * or not major.minor.patch, and a version that is not above the last release. (Refusing a breaking change
 * without a new major version is checkCompatibility's verdict, tested in spec-compat.test.ts.)
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PACKAGES, releasedVersions } from '../../scripts/spec-compat.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const RELEASE = path.join(root, 'scripts/release.mjs');
/** What a release writes: compared before and after each refusal. */
const WRITTEN = ['spec/openapi.yaml', 'package-lock.json', ...PACKAGES.map((d) => `${d}/package.json`)];
const contents = () => WRITTEN.map((file) => readFileSync(path.join(root, file), 'utf8'));
const release = (...args: string[]) =>
  spawnSync(process.execPath, [RELEASE, ...args], { cwd: root, encoding: 'utf8', timeout: 30_000 });

describe('npm run release', () => {
  const last = releasedVersions().at(-1) as string;

  it.each([[[]], [['1.2']], [['v2.0.0']], [['2.0.0-rc.1']]])('refuses %j as a version, changing nothing', (args) => {
    const before = contents();
    const run = release(...args);
    expect(run.status).toBe(1);
    expect(run.stderr.trim()).toBe('release: usage: npm run release -- <major.minor.patch>');
    expect(contents()).toEqual(before);
  });

  it('refuses the last released version, or one below it, changing nothing', () => {
    const [major, minor] = last.split('.').map(Number) as [number, number];
    for (const version of [last, `${major}.${Math.max(0, minor - 1)}.0`, '0.0.1']) {
      const before = contents();
      const run = release(version);
      expect(run.status, version).toBe(1);
      expect(run.stderr.trim()).toBe(`release: ${version} is not above the last release, ${last}`);
      expect(contents()).toEqual(before);
    }
  });
});
