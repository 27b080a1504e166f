/** An app over a fresh store of either database, with the demo exchange loaded on request. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { type Config, testConfig } from '../../src/config.js';
import { loadDemoIfEmpty } from '../../src/operator/commands.js';
import type { Store } from '../../src/store/store.js';
import { createTestStore, type DatabaseKind, type TestStore } from './databases.js';
import type { LedgerUser } from './signers.js';

export interface TestApp {
  app: FastifyInstance;
  store: Store;
  database: TestStore;
  config: Config;
  /** Builds another app (another "instance", or the same one restarted) on the same database and secrets. */
  another(): Promise<FastifyInstance>;
  close(): Promise<void>;
}

export async function testApp(
  kind: DatabaseKind,
  options: { demo?: boolean; now?: () => number; config?: Partial<Config> } = {},
): Promise<TestApp> {
  const database = await createTestStore(kind);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gateway-data-'));
  // The token endpoint's rate limit is tested on its own; other tests sign in freely.
  const config = testConfig({ dataDir, tokenRateLimit: 100_000, ...options.config });
  if (options.demo) await loadDemoIfEmpty(database.store, config.chainId);
  const app = await buildApp(config, { store: database.store, now: options.now });
  const others: FastifyInstance[] = [];
  return {
    app,
    store: database.store,
    database,
    config,
    async another() {
      const other = await buildApp(config, { store: database.reopen(), now: options.now });
      others.push(other);
      return other;
    },
    async close() {
      await Promise.all([app, ...others].map((a) => a.close()));
      await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A token request with `fields` as its form body. */
export function postToken(app: FastifyInstance, fields: Record<string, string>) {
  return app.inject({
    method: 'POST',
    url: '/v1/oauth2/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString(),
  });
}

/** The password grant's fields for `user` and a password it signs for `expiry`. */
export const passwordFields = (user: LedgerUser, password = user.password(Math.floor(Date.now() / 1000) + 600)) => ({
  grant_type: 'password',
  scope: 'general',
  username: user.username,
  password,
  client_id: 'waves.exchange',
});

/** Signs in with the password grant (form body) and returns the token response. */
export async function signIn(
  app: FastifyInstance,
  user: LedgerUser,
  expiry = Math.floor(Date.now() / 1000) + 3600,
): Promise<{ access_token: string; refresh_token: string; expires_in: number }> {
  const response = await postToken(app, passwordFields(user, user.password(expiry)));
  if (response.statusCode !== 200) throw new Error(`sign-in failed: ${response.statusCode} ${response.body}`);
  return response.json();
}

/** The code of an error answer's first error. */
export const codeOf = (response: { json(): unknown }) =>
  (response.json() as { errors: { code: number }[] }).errors[0]?.code;
