/**
 * The README's promises on the Node that runs this file: the server started as `npm start` starts it (its
 * heap flags, the embedded database, the demo exchange), a public read, a sign-in and a page through the
 * typed client, a feed import by the operator's command while it serves (seen in the next page), and a clean
 * stop. `npm test` runs it on the pinned Node with the rest; .ci/run runs it on each other supported line
 * (scripts/smoke.mjs), where process.execPath is that line's Node.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createGatewayClient, signerFromSeed } from '@gateway/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway } from '../src/gateway.js';
import { importMovement } from '../src/movements.js';
import { DEMO_SEED } from '../src/sign-in.js';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../../server/dist/cli.js', import.meta.url));
/** `npm start`'s Node flags (the root package.json). */
const START_FLAGS = '--max-old-space-size=160 --max-semi-space-size=16';

describe(`the README's commands on Node ${process.versions.node}`, () => {
  let gateway: RunningGateway;
  const client = () => createGatewayClient({ baseUrl: gateway.url, chainId: 'W', clientId: 'waves.exchange' });

  beforeAll(async () => {
    gateway = await startGateway({ NODE_OPTIONS: START_FLAGS });
  });
  afterAll(async () => {
    if (gateway) await gateway.stop();
  });

  it('serves a public read', async () => {
    const response = await fetch(`${gateway.url}/v1/platforms/ETH`);
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await response.json()).toMatchObject({ id: 'ETH' });
  });

  it('signs in and pages through movements with the typed client; an import while serving shows in the next page', async () => {
    const api = client();
    await api.login(signerFromSeed(DEMO_SEED));
    const before: string[] = [];
    for await (const movement of api.movements()) before.push(movement.id);
    expect(before.length).toBeGreaterThan(0);

    // A movement of the demo account through the operator's import, in another process, while it serves.
    const id = await importMovement(gateway.dataDir, 'confirmed');

    const after: string[] = [];
    for await (const movement of api.movements()) after.push(movement.id);
    expect(after).toContain(id);
    expect(after).toHaveLength(before.length + 1);
  });

  it('answers status with 0 while serving, and stops on SIGTERM with 0', async () => {
    const env = {
      PATH: process.env.PATH,
      DATA_DIR: gateway.dataDir,
      DATABASE_URL: `sqlite:${path.join(gateway.dataDir, 'gateway.db')}`,
      LOG_LEVEL: 'error',
    };
    const status = await run(process.execPath, [CLI, 'status', '--json'], { env });
    expect(JSON.parse(status.stdout).migrations).toMatchObject({ state: 'up to date' });
    const stopping = gateway;
    gateway = undefined as unknown as RunningGateway;
    expect(await stopping.stop()).toBe(0);
  });
});
