/**
 * The runtime under the operator's commands. better-sqlite3 12 on Node >= 24.19 aborted the process
 * (`Assertion failed: (env) != nullptr` in `Statement::~Statement`) when a collection finalised a statement
 * while idle or at exit: `gateway migrate` on a new database exited 134 in 9 runs of 10, partway through its
 * migrations, and long-running servers crash-looped. These run on whatever Node runs the suite (the pinned
 * LTS in `npm test`, each other supported line in .ci/run's smoke jobs) against the installed driver.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { demoFiles } from '../src/operator/commands.js';

const run = promisify(execFile);
const CLI = path.resolve(import.meta.dirname, '../dist/cli.js');
const DRIVER = createRequire(import.meta.url).resolve('better-sqlite3');
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'gateway-runtime-'));
  dirs.push(dir);
  return dir;
};
/** A new embedded database (and data folder) of its own. */
const newDatabase = () => {
  const dir = tempDir();
  return { DATA_DIR: dir, DATABASE_URL: `sqlite:${path.join(dir, 'gateway.db')}` };
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Runs `args` with this suite's Node: its exit code (or the signal that ended it) and what it printed. */
async function node(args: string[], env: NodeJS.ProcessEnv = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, args, {
      env: { PATH: process.env.PATH, LOG_LEVEL: 'error', ...env },
      cwd: tmpdir(),
    });
    return { code: 0 as number | null, signal: null as string | null, stdout, stderr };
  } catch (error) {
    const e = error as { code: number | null; signal: string | null; stdout: string; stderr: string };
    return { code: e.code, signal: e.signal, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('the SQLite driver on this Node', () => {
  it('lives through collections that finalise dropped statements while idle, and at exit', async () => {
    // Thousands of statements prepared, run and dropped; between rounds the process is idle and collects
    // them; the last round's are left for the exit to finalise.
    const script = `
      const Database = require(${JSON.stringify(DRIVER)});
      const db = new Database(${JSON.stringify(path.join(tempDir(), 'idle.db'))});
      db.pragma('journal_mode = WAL');
      db.exec('create table t (id integer primary key, v text)');
      const idle = () => new Promise((resolve) => setTimeout(resolve, 5));
      (async () => {
        for (let round = 0; round < 20; round++) {
          for (let i = 0; i < 200; i++) {
            db.prepare('insert into t (v) values (?) -- ' + round + '.' + i).run('x' + i);
            db.prepare('select count(*) as n from t where id > ' + i).get();
          }
          await idle();
          globalThis.gc();
          await idle();
        }
        for (let i = 0; i < 500; i++) db.prepare('select ' + i + ' as n').get();
        process.stdout.write('alive ' + db.prepare('select count(*) as n from t').get().n);
      })();`;
    const result = await node(['--expose-gc', '-e', script]);
    expect(result.signal, result.stderr).toBeNull();
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`alive ${20 * 200}`);
  });
});

describe('gateway commands on this Node', () => {
  it('migrate a new database ten times in ten runs, each exiting 0 with every migration recorded', async () => {
    for (let i = 0; i < 10; i++) {
      const env = newDatabase();
      const migrated = await node([CLI, 'migrate'], env);
      expect(migrated.signal, migrated.stderr).toBeNull();
      expect(migrated.code, `run ${i}: ${migrated.stderr}`).toBe(0);
      expect(migrated.stdout).toMatch(/applied: 0001/);
      const status = await node([CLI, 'status', '--json'], env);
      expect(status.code, status.stderr).toBe(0);
      expect(JSON.parse(status.stdout).migrations).toMatchObject({ state: 'up to date', pending: [] });
    }
  });

  it('load a catalogue, import, and answer a usage error and an unknown command with 2', async () => {
    const env = newDatabase();
    expect((await node([CLI, 'migrate'], env)).code).toBe(0);
    const loaded = await node([CLI, 'catalogue', 'load', demoFiles.catalogue], env);
    expect(loaded.code, loaded.stderr).toBe(0);
    const imported = await node([CLI, 'movements', 'import', demoFiles.movements], env);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toMatch(/\d+ (line|movement)/);
    expect((await node([CLI, 'movements', 'import'], env)).code).toBe(2);
    expect((await node([CLI, 'no-such-command'], env)).code).toBe(2);
  });

  it('prune: a dry run counts what each task would delete, a run deletes and says what, both exit 0', async () => {
    const env = newDatabase();
    expect((await node([CLI, 'migrate'], env)).code).toBe(0);
    const dry = await node([CLI, 'prune', '--dry-run'], env);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout.trim().split('\n')).toEqual([
      'events: 0 to delete',
      'sign-outs: 0 to delete',
      'sign-ins: not counted',
    ]);
    const pruned = await node([CLI, 'prune'], env);
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(pruned.stdout).toMatch(/^events: 0 deleted\nsign-outs: 0 deleted\nsign-ins: 0 deleted\nin [\d.]+ s\n$/);
  });

  it('refuse a Node older than the oldest supported line in one sentence, with 2, before opening anything', async () => {
    const env = newDatabase();
    const older = `data:text/javascript,Object.defineProperty(process.versions, "node", { value: "20.19.0" })`;
    const result = await node(['--import', older, CLI, 'migrate'], env);
    expect(existsSync(env.DATABASE_URL.slice('sqlite:'.length))).toBe(false);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toMatch(/^gateway needs Node\.js 22 or later .* this is Node\.js 20\.19\.0; /);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stdout).toBe('');
  });
});
