/**
 * One housekeeper per database: three real instances on one PostgreSQL database elect one (the holder of a
 * session advisory lock, operator/housekeeper.ts), as `gateway_housekeeper` in their metrics says; when it is
 * killed (SIGKILL: no goodbye, the database ends its session and the lock with it) another takes over within
 * its election interval, and there is still exactly one.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway } from '../src/gateway.js';
import { createDatabase } from '../src/postgres.js';

/** Whether `gateway` says it is the housekeeper; null when it does not answer (killed). */
async function holds(gateway: RunningGateway): Promise<boolean | null> {
  try {
    const text = await (await fetch(`${gateway.url}/metrics`)).text();
    return /^gateway_housekeeper 1$/m.test(text);
  } catch {
    return null;
  }
}

async function housekeepers(gateways: RunningGateway[], within: number): Promise<RunningGateway[]> {
  const deadline = Date.now() + within;
  for (;;) {
    const states = await Promise.all(gateways.map(holds));
    const holding = gateways.filter((_, i) => states[i] === true);
    if (holding.length === 1 || Date.now() > deadline) return holding;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('three instances on one PostgreSQL database', () => {
  let database: Awaited<ReturnType<typeof createDatabase>>;
  const gateways: RunningGateway[] = [];

  beforeAll(async () => {
    database = await createDatabase();
    const env = {
      DATABASE_URL: database.url,
      TOKEN_SIGNING_KEY: generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      PROXY_SEED: randomBytes(16).toString('hex'),
      CURSOR_SECRET: randomBytes(32).toString('hex'),
      // The shortest interval: an instance not holding the lock tries again every 5 s.
      HOUSEKEEPING_INTERVAL_SECONDS: '10',
      LOG_LEVEL: 'info',
    };
    // One after the other: the first migrates the new database.
    gateways.push(await startGateway(env));
    gateways.push(...(await Promise.all([startGateway(env), startGateway(env)])));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.stop()));
    await database?.drop();
  });

  it('elect one housekeeper; another takes over within seconds of its SIGKILL', async () => {
    const [first] = await housekeepers(gateways, 15_000);
    expect(first).toBeDefined();
    expect((await Promise.all(gateways.map(holds))).filter(Boolean)).toHaveLength(1);
    expect(first?.output()).toMatch(/housekeeper: this instance is the housekeeper/);

    await first?.stop('SIGKILL');
    const others = gateways.filter((g) => g !== first);
    const killedAt = Date.now();
    const [second] = await housekeepers(others, 15_000);
    expect(second).toBeDefined();
    expect(Date.now() - killedAt).toBeLessThan(15_000);
    expect((await Promise.all(others.map(holds))).filter(Boolean)).toHaveLength(1);
  }, 60_000);
});
