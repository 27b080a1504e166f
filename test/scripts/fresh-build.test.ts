/**
 * The test workspace's suites run against the builds (server/dist, ...): src/fresh-build.ts finds a build
 * older than its sources, names the newer source, and builds before testing. Real files with set times.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUILDS, staleness } from '../src/fresh-build.js';

const base = mkdtempSync(path.join(tmpdir(), 'gateway-fresh-build-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const server = BUILDS.find((b) => b.name === 'server');
if (!server) throw new Error('no server build in BUILDS');

/** Writes `file` under the checkout with the modification time `seconds` (since the epoch). */
function file(relative: string, seconds: number) {
  const full = path.join(base, relative);
  mkdirSync(path.dirname(full), { recursive: true });
  writeFileSync(full, relative);
  utimesSync(full, seconds, seconds);
}

describe('a build compared with its sources', () => {
  it('is missing when nothing was built', () => {
    expect(staleness(server, base)).toBe('server/dist is missing');
  });

  it('is fresh when its output is newer than every source, stale naming the newer source otherwise', () => {
    file('server/src/handlers/platforms.ts', 1_000);
    file('server/package.json', 1_000);
    file('server/dist/handlers/platforms.js', 2_000);
    expect(staleness(server, base)).toBeNull();

    file('server/src/handlers/deposit.ts', 3_000);
    expect(staleness(server, base)).toBe('server/src/handlers/deposit.ts is newer than server/dist');
  });

  it('counts the spec as a source of the generated code', () => {
    const generated = BUILDS.find((b) => b.name === 'generated');
    if (!generated) throw new Error('no generated build in BUILDS');
    file('generated/src/types.ts', 1_000);
    file('generated/dist/types.js', 2_000);
    expect(staleness(generated, base)).toBeNull();
    file('spec/paths/platforms.yaml', 3_000);
    expect(staleness(generated, base)).toBe('spec/paths/platforms.yaml is newer than generated/dist');
  });

  it('holds for the checkout as built for this run', () => {
    // The global setup built whatever was stale before any suite started.
    expect(BUILDS.map((b) => staleness(b))).toEqual(BUILDS.map(() => null));
  });
});
