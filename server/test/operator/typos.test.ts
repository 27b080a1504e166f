/**
 * Operators' typos are refused, named, with the nearest known key: a catalogue's unknown keys, a feed
 * line's unknown fields. And `gateway` is a bin of the server package, run by `npx gateway` in the checkout.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { parseMovement } from '../../src/domain/feeds.js';
import { demoFiles } from '../../src/operator/commands.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../../..');
const SERVER = path.join(ROOT, 'server');
const dir = mkdtempSync(path.join(tmpdir(), 'gateway-typos-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const env = { ...process.env, DATABASE_URL: `sqlite:${dir}/gateway.db`, DATA_DIR: dir, LOG_LEVEL: 'error' };
const gateway = (...args: string[]) =>
  run(process.execPath, [path.join(SERVER, 'dist/cli.js'), ...args], { env }).then(
    (r) => ({ code: 0, ...r }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
const catalogue = (name: string, edit: (text: string) => string) => {
  const file = path.join(dir, name);
  writeFileSync(file, edit(readFileSync(demoFiles.catalogue, 'utf8')));
  return file;
};
const platformName = (id: string) => {
  const db = new Database(`${dir}/gateway.db`, { readonly: true });
  try {
    return (db.prepare('select name from platforms where id = ?').get(id) as { name: string }).name;
  } finally {
    db.close();
  }
};

describe('a catalogue with keys its schema does not name', () => {
  it('is refused, naming each unknown key and the known key it most likely misspells; nothing is written', async () => {
    expect((await gateway('catalogue', 'load', demoFiles.catalogue)).code).toBe(0);
    const renamed = (text: string) => text.replace('name: Bitcoin', 'name: Bitcoin Renamed');
    const colour = await gateway(
      'catalogue',
      'load',
      catalogue('colour.yaml', (t) => `colour: orange\n${renamed(t)}`),
    );
    expect(colour.code).toBe(1);
    expect(colour.stderr).toContain('the catalogue is invalid:\n  unknown key colour\n');
    const typo = catalogue('typo.yaml', (t) => renamed(t).replace('default_platform: BSC', 'default_plaform: BSC'));
    const misspelled = await gateway('catalogue', 'load', typo);
    expect(misspelled.code).toBe(1);
    expect(misspelled.stderr).toContain('currencies[0]: unknown key default_plaform (did you mean default_platform?)');
    // Said once, as the misspelling: not also as a missing key.
    expect(misspelled.stderr).not.toContain('is required');
    const nested = catalogue('nested.yaml', (t) => renamed(t).replace("fee_flat: '0.001'", "fee_flta: '0.001'"));
    expect((await gateway('catalogue', 'load', nested)).stderr).toMatch(
      /currencies\[0\] \(BNB\)\.platforms\.BSC\.withdrawal: unknown key fee_flta \(did you mean fee_flat\?\)/,
    );
    expect(platformName('BTC')).toBe('Bitcoin');
  });
});

describe("a feed line's unknown fields", () => {
  const line = JSON.parse(readFileSync(demoFiles.movements, 'utf8').split('\n')[0] ?? '{}');
  const problems = (record: object) => {
    const parsed = parseMovement(JSON.stringify(record), 'W', () => 8);
    return parsed.ok ? [] : parsed.problems;
  };

  it('are named with the field they most likely misspell', () => {
    const { amount, ...rest } = line;
    expect(problems({ ...rest, amout: amount })).toEqual(['unknown field(s): amout (did you mean amount?)']);
    expect(problems({ ...line, colour: 'red' })).toEqual(['unknown field(s): colour']);
  });
});

describe('npx gateway', () => {
  it('is a bin of the server package kept in the repository (npm links it at install, before any build)', () => {
    const { bin } = JSON.parse(readFileSync(path.join(SERVER, 'package.json'), 'utf8'));
    expect(bin.gateway).not.toMatch(/dist\//);
    expect(existsSync(path.join(SERVER, bin.gateway))).toBe(true);
  });

  it('runs from the repository root: `npx gateway help` exits 0', async () => {
    const { stdout } = await run('npx', ['--no', 'gateway', 'help'], { cwd: ROOT, env: process.env });
    expect(stdout).toMatch(/^usage: gateway COMMAND/);
  });
});
