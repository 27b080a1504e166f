/**
 * Versions move together: the spec's info.version (and so the bundled document's), the client, server, ledger and
 * generated packages carry one version; CHANGELOG.md has a section for it; the last released document in
 * spec/released/ is not newer.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { compareVersions, PACKAGES, releasedVersions } from '../../scripts/spec-compat.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const specVersion: string = parse(read('spec/openapi.yaml')).info.version;

describe('versions', () => {
  it('the spec version is semantic (major.minor.patch)', () => {
    expect(specVersion).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it.each(PACKAGES)('%s/package.json carries the spec version', (dir) => {
    expect(JSON.parse(read(`${dir}/package.json`)).version).toBe(specVersion);
  });

  it('the bundled document carries the spec version', () => {
    expect(JSON.parse(read('generated/openapi.json')).info.version).toBe(specVersion);
  });

  it('package-lock.json records the same versions for the workspaces', () => {
    const lock = JSON.parse(read('package-lock.json'));
    for (const dir of PACKAGES) expect(lock.packages[dir].version, dir).toBe(specVersion);
  });

  it('CHANGELOG.md has a section for the version', () => {
    expect(read('CHANGELOG.md')).toContain(`## [${specVersion}]`);
  });

  it('the last released document is not newer than the spec, and each carries its version', () => {
    const versions = releasedVersions();
    expect(versions.length).toBeGreaterThan(0);
    expect(compareVersions(versions.at(-1) ?? '', specVersion)).toBeLessThanOrEqual(0);
    for (const v of versions) expect(JSON.parse(read(`spec/released/${v}.json`)).info.version).toBe(v);
  });
});
