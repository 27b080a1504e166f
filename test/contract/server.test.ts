/**
 * Every contract scenario against the real server (the built binary, embedded database, demo exchange):
 * directly over HTTP, with each body validated against the spec and each error code checked; against the
 * same app built in this process (`buildApp`); and through
 * Prism's validating proxy (`prism proxy --errors`), which turns any response that breaks the spec into a
 * 500. Prism answers requests that break the spec itself; the direct run covers those.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApiClient, passwordFor, signerFromSeed } from '@gateway/client';
import { type OperationId, operationMeta } from '@gateway/generated';
import { buildApp, loadDemoIfEmpty, openStore, testConfig } from '@gateway/server';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scenarios } from '../scenarios/index.js';
import { exampleRequests } from '../src/examples.js';
import { type RunningGateway, startGateway } from '../src/gateway.js';
import { type RunningPrism, startPrism } from '../src/prism.js';
import { firstChunk, problemsWith, send } from '../src/run.js';
import type { ScenarioContext } from '../src/scenario.js';
import { responseProblems } from '../src/spec.js';

/** The demo account of the README: the ledger reference library's public known-answer seed. */
const DEMO_SEED = 'uncle push human bus echo drastic garden joke sand warfare sentence fossil title color combine';
const PRISM_REQUEST_SIDE =
  /#(UNPROCESSABLE_ENTITY|UNAUTHORIZED|NO_PATH_MATCHED_ERROR|NO_METHOD_MATCHED_ERROR|INVALID_CONTENT_TYPE)$/;

/** What the scenarios need from a server at `baseUrl`: tokens of the demo account and one of its movements. */
async function serverContext(baseUrl: string): Promise<ScenarioContext> {
  const signer = signerFromSeed(DEMO_SEED);
  const api = createApiClient({ baseUrl });
  // Each password is signed for a later expiry than the one before: a scenario that revokes a sign-in ends
  // the account's passwords expiring up to its own, and the next scenario may sign in within the same second.
  let lastExpiry = 0;
  const passwordGrant = async () => {
    lastExpiry = Math.max(Math.floor(Date.now() / 1000) + 600, lastExpiry + 1);
    return {
      grant_type: 'password',
      scope: 'general',
      username: signer.publicKey,
      password: await passwordFor(signer, 'W', 'waves.exchange', lastExpiry),
      client_id: 'waves.exchange',
    };
  };
  const signIn = async (fields?: Record<string, string>) => {
    const response = await fetch(`${baseUrl}/v1/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields ?? (await passwordGrant())),
    });
    if (response.status !== 200) throw new Error(`sign-in: ${response.status} ${await response.text()}`);
    return (await response.json()) as { access_token: string; refresh_token: string };
  };
  const { access_token } = await signIn();
  return {
    bearer: async () => `Bearer ${access_token}`,
    passwordGrant,
    freshRefreshToken: async () => (await signIn()).refresh_token,
    async signedOutPasswordGrant() {
      const fields = await passwordGrant();
      const { refresh_token } = await signIn(fields);
      const revoked = await fetch(`${baseUrl}/v1/oauth2/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: refresh_token }),
      });
      if (revoked.status !== 200) throw new Error(`revoke: ${revoked.status} ${await revoked.text()}`);
      return fields;
    },
    movementId: async () => {
      const { data } = await api.GET('/v1/movements', {
        params: { query: { limit: 1 } },
        headers: { authorization: `Bearer ${access_token}` },
      });
      const id = data?.items[0]?.id;
      if (!id) throw new Error('the demo account has no movement');
      return id;
    },
  };
}

let gateway: RunningGateway;
let proxy: RunningPrism;
let context: ScenarioContext;
let inProcess: { app: FastifyInstance; url: string; context: ScenarioContext; dataDir: string };

beforeAll(async () => {
  gateway = await startGateway();
  proxy = await startPrism({ kind: 'proxy', upstream: gateway.url });
  context = await serverContext(gateway.url);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gateway-inprocess-'));
  const config = testConfig({
    dataDir,
    databaseUrl: `sqlite:${path.join(dataDir, 'gateway.db')}`,
    tokenRateLimit: 100_000,
  });
  const store = openStore(config.databaseUrl);
  await store.migrate();
  await loadDemoIfEmpty(store, 'W');
  const app = await buildApp(config, { store });
  app.addHook('onClose', () => store.close());
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  inProcess = { app, url, context: await serverContext(url), dataDir };
}, 120_000);

afterAll(async () => {
  await proxy?.stop();
  await gateway?.stop();
  await inProcess?.app.close();
  if (inProcess) rmSync(inProcess.dataDir, { recursive: true, force: true });
});

const forServer = scenarios.filter((s) => s.only !== 'mock');

describe('contract scenarios against the real server, directly', () => {
  it.each(forServer.map((s) => [s.name, s] as const))('%s', async (_name, scenario) => {
    const answer = await send(gateway.url, scenario, context);
    expect(problemsWith(answer, scenario, 'server')).toEqual([]);
  });
});

describe('contract scenarios against the server built in-process (buildApp)', () => {
  it.each(forServer.map((s) => [s.name, s] as const))('%s', async (_name, scenario) => {
    const answer = await send(inProcess.url, scenario, inProcess.context);
    expect(problemsWith(answer, scenario, 'server')).toEqual([]);
  });
});

describe("the spec's example requests answer on the demo exchange", () => {
  const examples = exampleRequests();
  it('every operation without a body has an example request, with every path parameter filled', () => {
    expect([...new Set(examples.map((e) => e.operationId))]).toEqual(
      (Object.keys(operationMeta) as OperationId[]).filter((id) => operationMeta[id].bodyContentTypes.length === 0),
    );
    expect(examples.filter((e) => /[{}]/.test(e.url)).map((e) => e.url)).toEqual([]);
  });
  it.each(examples.map((e) => [`${e.method} ${e.url}`, e] as const))('%s', async (_name, example) => {
    const headers: Record<string, string> = example.protected ? { authorization: await context.bearer() } : {};
    const response = await fetch(new URL(example.url, gateway.url), { method: example.method, headers });
    // An event stream does not end while its token lives: its answer is what it opens with.
    const text = response.headers.get('content-type')?.startsWith('text/event-stream')
      ? await firstChunk(response)
      : await response.text();
    expect(response.status, text.slice(0, 400)).toBe(example.status);
    const json = response.headers.get('content-type')?.includes('json');
    expect(responseProblems(example.operationId, response.status, json ? JSON.parse(text) : text)).toEqual([]);
  });
});

describe('contract scenarios against the real server, through prism proxy --errors', () => {
  let forwarded = 0;
  it.each(forServer.map((s) => [s.name, s] as const))('%s', async (_name, scenario) => {
    const answer = await send(proxy.url, scenario, context);
    const prismType = (answer.body as { type?: string } | null)?.type ?? '';
    if (scenario.expect.status >= 400 && PRISM_REQUEST_SIDE.test(prismType)) return; // refused by Prism itself
    forwarded++;
    expect(problemsWith(answer, scenario, 'server')).toEqual([]);
  });
  it('most scenarios reached the server through the proxy', () => {
    expect(forwarded).toBeGreaterThanOrEqual(40);
  });
});
