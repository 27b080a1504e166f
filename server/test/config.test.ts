/** The configuration is one schema: `.env.example` documents every key of it and nothing else. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, configEnvNames, loadConfig } from '../src/config.js';

describe('configuration', () => {
  it('.env.example lists every key of the schema, each once, and no other', () => {
    const example = readFileSync(new URL('../../.env.example', import.meta.url), 'utf8');
    const listed = [...example.matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]);
    expect(new Set(listed).size, 'a key listed twice').toBe(listed.length);
    expect([...listed].sort()).toEqual([...configEnvNames].sort());
  });

  it('every key has a default that passes its own check (the embedded mode needs no setup)', () => {
    const config = loadConfig({}, false);
    expect(Object.keys(config).length).toBe(configEnvNames.length);
    expect(config).toMatchObject({ port: 3000, chainId: 'W', clientIds: ['waves.exchange', 'wx.network'] });
    expect(config.corsOrigins).toEqual([]);
  });

  it('reads lists and numbers from their text, and names a bad key', () => {
    const config = loadConfig({ CORS_ORIGINS: 'https://a.example,https://b.example', DATABASE_POOL_SIZE: '5' }, false);
    expect(config.corsOrigins).toEqual(['https://a.example', 'https://b.example']);
    expect(config.databasePoolSize).toBe(5);
    expect(() => loadConfig({ CLIENT_IDS: 'not an id' }, false)).toThrow(ConfigError);
    expect(() => loadConfig({ CLIENT_IDS: 'not an id' }, false)).toThrow(/CLIENT_IDS/);
  });
});

describe('a setting read from its text', () => {
  it('takes decimal integers only, in their bounds, and names each bad key without quoting its value', () => {
    expect(loadConfig({ PORT: ' 8080 ' }, false).port).toBe(8080);
    for (const text of ['', 'abc', '80.0', '8e1', '0x50']) {
      expect(() => loadConfig({ PORT: text }, false)).toThrow('invalid configuration: PORT must be an integer');
    }
    expect(() => loadConfig({ PORT: '65536' }, false)).toThrow('PORT must be at most 65535');
    expect(() => loadConfig({ DATABASE_POOL_SIZE: '0' }, false)).toThrow(/DATABASE_POOL_SIZE must be at least 1/);
    const secret = 'f'.repeat(63);
    expect(() => loadConfig({ CHAIN_ID: 'X', CURSOR_SECRET: secret, HOST: '' }, false)).toThrow(
      'invalid configuration: HOST must not be empty; CHAIN_ID must be one of W, T; CURSOR_SECRET must match ^([0-9a-fA-F]{64,})?$',
    );
    const refusal = (() => {
      try {
        loadConfig({ CURSOR_SECRET: secret }, false);
        return 'accepted';
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(refusal).toMatch(/CURSOR_SECRET must match/);
    expect(refusal).not.toContain(secret);
  });

  it('reads an empty list as none, and a list key left unset as its default list', () => {
    expect(loadConfig({ CORS_ORIGINS: '' }, false).corsOrigins).toEqual([]);
    expect(loadConfig({ TOKEN_ACCEPTED_PUBLIC_KEYS: 'a,b' }, false).tokenAcceptedPublicKeys).toEqual(['a', 'b']);
    expect(loadConfig({}, false).clientIds).toEqual(['waves.exchange', 'wx.network']);
  });

  it('reads only the environment it is given: the process environment does not leak into a test configuration', () => {
    const before = process.env.PORT;
    process.env.PORT = '4444';
    try {
      expect(loadConfig({}, false).port).toBe(3000);
      expect(loadConfig(process.env, false).port).toBe(4444);
    } finally {
      if (before === undefined) delete process.env.PORT;
      else process.env.PORT = before;
    }
  });

  it('takes from a .env file in the working folder what the environment does not set', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gateway-dotenv-'));
    const cwd = process.cwd();
    writeFileSync(path.join(dir, '.env'), 'PORT=4001\nLOG_LEVEL=debug\nCLIENT_IDS="a.example,b.example"\n');
    try {
      process.chdir(dir);
      const env: Record<string, string> = { LOG_LEVEL: 'warn' };
      const config = loadConfig(env);
      expect(config).toMatchObject({ port: 4001, logLevel: 'warn', clientIds: ['a.example', 'b.example'] });
      expect(loadConfig({ LOG_LEVEL: 'warn' }, false).port).toBe(3000);
    } finally {
      process.chdir(cwd);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
