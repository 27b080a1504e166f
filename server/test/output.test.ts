/**
 * What a person reads: log lines as LOG_FORMAT says (JSON without a terminal by default, which every test
 * reading the logs relies on), the secrets warning once per data folder, and `npm start`'s word before its build.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { type TestApp, testApp } from './support/app.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(path.join(tmpdir(), 'gateway-output-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The first line `gateway serve` writes on a pipe (not a terminal), with LOG_FORMAT as given. */
function firstLogLine(logFormat: string | undefined, folder: string): Promise<string> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    PORT: '0',
    DATA_DIR: folder,
    DATABASE_URL: `sqlite:${folder}/gateway.db`,
    LOG_FORMAT: logFormat,
    LOG_LEVEL: 'info',
  };
  if (logFormat === undefined) delete env.LOG_FORMAT;
  const server = spawn(process.execPath, [path.join(ROOT, 'server/dist/cli.js'), 'serve'], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let text = '';
    server.stdout.on('data', (chunk) => {
      text += chunk;
      if (text.includes('\n')) {
        server.kill('SIGTERM');
        resolve(text.split('\n')[0] ?? '');
      }
    });
    server.once('exit', (code) => reject(new Error(`the server ended (${code}) before a line: ${text}`)));
  });
}

const isJson = (line: string) => {
  try {
    return typeof JSON.parse(line) === 'object';
  } catch {
    return false;
  }
};

describe('LOG_FORMAT', () => {
  it('pretty: readable lines, not JSON, even on a pipe', async () => {
    const line = await firstLogLine('pretty', mkdtempSync(path.join(dir, 'pretty-')));
    expect(isJson(line)).toBe(false);
    expect(line).toMatch(/WARN|INFO/);
  });

  it('by default, without a terminal: JSON lines, as collectors and the tests read them', async () => {
    expect(isJson(await firstLogLine(undefined, mkdtempSync(path.join(dir, 'auto-'))))).toBe(true);
    expect(isJson(await firstLogLine('json', mkdtempSync(path.join(dir, 'json-'))))).toBe(true);
  });
});

describe("embedded mode's generated secrets", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp('sqlite');
  });
  afterAll(() => t.close());

  /** The `embedded mode:` lines of one start on a data folder: level and message. */
  async function start(dataDir: string) {
    const lines: { level: number; msg: string }[] = [];
    const app = await buildApp(
      { ...t.config, dataDir, logLevel: 'info' },
      { store: t.store, logStream: { write: (line) => lines.push(JSON.parse(line)) } },
    );
    await app.ready();
    await app.close();
    return lines.filter((line) => String(line.msg).startsWith('embedded mode:'));
  }

  it('are a warning once, when they are generated; each later start says in one info line where they are', async () => {
    const folder = mkdtempSync(path.join(dir, 'secrets-'));
    const first = await start(folder);
    expect(first.map((l) => l.level)).toEqual([40]);
    expect(first[0]?.msg).toMatch(/generated into .*secrets\.json/);
    for (const later of [await start(folder), await start(folder)]) {
      expect(later.map((l) => l.level)).toEqual([30]);
      expect(later[0]?.msg).toMatch(/read from .*secrets\.json/);
    }
  });
});

describe('npm start', () => {
  it('says what its build does and roughly how long it takes before it runs it', async () => {
    const { stderr } = await promisify(execFile)(process.execPath, [path.join(ROOT, 'scripts/build-note.mjs')]);
    expect(stderr).toMatch(/^npm start: .*build.*(seconds|minute)/);
  });
});
