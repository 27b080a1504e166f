/**
 * `npm run dev` (scripts/dev.mjs) as an API developer meets it, in a throwaway copy of the checkout
 * (scripts/dev-copy.mjs: the checkout itself is never edited, so that other suites reading its builds are
 * safe): it serves the demo, a handler edit is served, a type error and a structurally broken spec edit are
 * printed with their file and line while the last good build keeps being served, a spec edit that leaves nothing
 * served is said to (never "served all the same"), and the next spec edit is served. Times are printed,
 * not asserted (scripts/measure-dev-loop.mjs measures them).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyForDev } from '../../scripts/dev-copy.mjs';
import { freePort } from '../src/prism.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(path.join(tmpdir(), 'gateway-dev-loop-'));
const LIVENESS = "getLiveness: async () => ({ status: 200, body: { status: 'ok' } }),";
const DESCRIPTION = 'description: The process is alive.';

let copy: string;
let dev: ChildProcess;
let base: string;
let output = '';

/** Polls `check` until it holds; the seconds it took. */
async function until(what: string, check: () => Promise<boolean>, limitMs: number): Promise<string> {
  const started = performance.now();
  while (performance.now() - started < limitMs) {
    if (await check().catch(() => false)) return ((performance.now() - started) / 1000).toFixed(1);
    if (dev.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what}: not within ${limitMs / 1000} s; npm run dev said:\n${output.slice(-3000)}`);
}

const live = () => fetch(`${base}/health/live`, { signal: AbortSignal.timeout(2000) });
const edit = (file: string, from: string, to: string) => {
  const full = path.join(copy, file);
  const text = readFileSync(full, 'utf8');
  expect(text).toContain(from);
  writeFileSync(full, text.replace(from, to));
};

beforeAll(async () => {
  copy = copyForDev(root, path.join(work, 'checkout'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  dev = spawn(process.execPath, ['scripts/dev.mjs'], {
    cwd: copy,
    env: { ...process.env, PORT: String(port), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  dev.stdout?.on('data', (chunk) => (output += chunk));
  dev.stderr?.on('data', (chunk) => (output += chunk));
  const took = await until('the first answer', async () => (await live()).ok, 400_000);
  console.log(`npm run dev: first answer after ${took} s (a fresh copy: every package compiled)`);
}, 420_000);

afterAll(async () => {
  if (dev && dev.exitCode === null) {
    dev.kill('SIGTERM');
    await new Promise((resolve) => dev.once('exit', resolve));
  }
  rmSync(work, { recursive: true, force: true });
}, 30_000);

describe('npm run dev', () => {
  it('serves a handler edit', async () => {
    edit(
      'server/src/handlers/health.ts',
      LIVENESS,
      LIVENESS.replace('} }),', "}, headers: { 'x-dev-loop': 'edited' } }),"),
    );
    const took = await until(
      'the handler edit',
      async () => (await live()).headers.get('x-dev-loop') === 'edited',
      180_000,
    );
    console.log(`handler edit served after ${took} s`);
  }, 200_000);

  it('prints a type error in a handler edit, naming the file, and keeps serving the last good build', async () => {
    const file = 'server/src/handlers/health.ts';
    const good = readFileSync(path.join(copy, file), 'utf8');
    const since = output.length;
    edit(file, "status: 200, body: { status: 'ok' }", "status: 201, body: { status: 'ok' }");
    await until('the type error', async () => output.slice(since).includes('server: does not compile'), 120_000);
    expect(output.slice(since)).toMatch(/server: does not compile; still serving the build started at \d\d:\d\d:\d\d/);
    expect(output.slice(since)).toMatch(/server\/src\/handlers\/health\.ts\(\d+,\d+\): error TS2322/);
    const answer = await live();
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-dev-loop')).toBe('edited');
    writeFileSync(path.join(copy, file), good);
    await until(
      'the restart after the fix',
      async () => /serving http/.test(output.slice(output.lastIndexOf('does not compile'))),
      120_000,
    );
  }, 150_000);

  it('refuses a structurally broken spec edit, naming file and line, and keeps serving the last good build', async () => {
    const file = 'spec/paths/health.yaml';
    const lines = readFileSync(path.join(copy, file), 'utf8').split('\n');
    const index = lines.indexOf('    responses:');
    lines[index] = '    respones:';
    writeFileSync(path.join(copy, file), lines.join('\n'));
    await until('the refusal', async () => output.includes('spec: refused'), 120_000);
    expect(output).toContain(`${file}:${index + 1}:5: Property \`respones\` is not expected here`);
    expect(output).toMatch(/spec: refused, generated\/ unchanged; still serving the build started at \d\d:\d\d:\d\d/);
    expect(output).not.toMatch(/^\s+at /m); // one short message, no stack
    const answer = await live();
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-dev-loop')).toBe('edited');
    lines[index] = '    responses:';
    writeFileSync(path.join(copy, file), lines.join('\n'));
  }, 150_000);

  it('says nothing is served when a spec edit that does not compile leaves the port refusing connections', async () => {
    // An operation renamed in the spec: the handler map no longer type-checks, and the server refuses to start
    // (no handler for the new operationId), so the port refuses connections: the loop must say so.
    const file = 'spec/paths/health.yaml';
    const good = readFileSync(path.join(copy, file), 'utf8');
    const since = output.length;
    edit(file, 'operationId: getLiveness', 'operationId: getLivenessRenamed');
    await until(
      'the type error',
      async () => output.slice(since).includes('does not compile against the new spec'),
      180_000,
    );
    const said = output.slice(since);
    expect(said).not.toContain('served all the same');
    expect(said).toMatch(
      /server: does not compile against the new spec \(nothing answers at http:\/\/127\.0\.0\.1:\d+ until an edit builds;/,
    );
    await expect(live()).rejects.toThrow();
    writeFileSync(path.join(copy, file), good);
    await until('the restart after the fix', async () => (await live()).ok, 180_000);
  }, 400_000);

  it('goes on: the next spec edit is served', async () => {
    edit('spec/paths/health.yaml', DESCRIPTION, 'description: The process is alive (edited).');
    const served = async () => (await (await fetch(`${base}/openapi.json`)).text()).includes('alive (edited)');
    const took = await until('the spec edit', served, 180_000);
    console.log(`spec edit served after ${took} s`);
    expect((await live()).headers.get('x-dev-loop')).toBe('edited');
  }, 200_000);
});
