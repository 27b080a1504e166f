/** The configuration is one schema: `.env.example` documents every key of it and nothing else. */
import { readFileSync } from 'node:fs';
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
