/**
 * A rolling upgrade, and a rollback, as the real server processes see them: instances of a release on one
 * PostgreSQL database that a newer release then migrates (one expand-only migration this release does not
 * know, applied and recorded as Kysely records it). The instance already running keeps serving; one started
 * afterwards (a restart, or a rollback's redeploy) starts on the newer schema instead of exiting with
 * Kysely's "corrupted migrations", serves, and says once that it did not migrate or render.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway } from '../src/gateway.js';
import { createDatabase } from '../src/postgres.js';
import { passwordGrant } from '../src/sign-in.js';

const pg = createRequire(import.meta.url)('pg') as typeof import('pg');

const NEWER = '0999_from_a_newer_release';

describe('instances of a release on a PostgreSQL database a newer release migrated', () => {
  let database: Awaited<ReturnType<typeof createDatabase>>;
  let env: Record<string, string>;
  let running: RunningGateway;
  let started: RunningGateway | undefined;

  beforeAll(async () => {
    database = await createDatabase();
    env = {
      DATABASE_URL: database.url,
      TOKEN_SIGNING_KEY: generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      PROXY_SEED: randomBytes(16).toString('hex'),
      CURSOR_SECRET: randomBytes(32).toString('hex'),
    };
    // This release's instance migrates the empty database and loads the demo exchange.
    running = await startGateway(env);
    // The newer release's first instance migrates: a nullable column and a table, recorded.
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query('alter table movements add column memo text');
      await client.query('create table newer_release_things (id text primary key)');
      await client.query('insert into kysely_migration (name, timestamp) values ($1, $2)', [
        NEWER,
        new Date().toISOString(),
      ]);
    } finally {
      await client.end();
    }
  }, 120_000);

  afterAll(async () => {
    await running?.stop();
    await started?.stop();
    await database?.drop();
  });

  async function signIn(gateway: RunningGateway) {
    const { response } = await passwordGrant(gateway.url);
    expect(response.status, await response.clone().text()).toBe(200);
    return (await response.json()) as { access_token: string };
  }

  it('the instance already running keeps serving', async () => {
    const platforms = await fetch(`${running.url}/v1/platforms`);
    expect(platforms.status).toBe(200);
    const { access_token } = await signIn(running);
    const movements = await fetch(`${running.url}/v1/movements?limit=3`, {
      headers: { authorization: `Bearer ${access_token}` },
    });
    expect(movements.status).toBe(200);
  });

  it('an instance started on the newer schema serves, and says once that it neither migrated nor rendered', async () => {
    started = await startGateway(env);
    const platforms = await fetch(`${started.url}/v1/platforms`);
    expect(platforms.status).toBe(200);
    expect(((await platforms.json()) as { items: unknown[] }).items.length).toBeGreaterThan(0);
    // A sign-in writes (a token family and its refresh token); the list reads stored documents.
    const { access_token } = await signIn(started);
    const movements = await fetch(`${started.url}/v1/movements?limit=3`, {
      headers: { authorization: `Bearer ${access_token}` },
    });
    expect(movements.status).toBe(200);
    expect(((await movements.json()) as { items: unknown[] }).items).toHaveLength(3);
    const notices = started
      .output()
      .split('\n')
      .filter((line) => line.includes('ahead of this release'));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain(`migration ${NEWER} is from a newer release`);
    expect(notices[0]).toContain('serving on it without migrating');
    expect(started.output()).not.toContain('corrupted migrations');
  });
});
