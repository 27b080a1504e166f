/**
 * OpenTelemetry tracing of the real server (the built CLI, `gateway serve`), exporting over OTLP/HTTP to a
 * receiver in this process: a sign-in's trace holds the request's span, continuing the caller's
 * `traceparent`, and its database and Redis calls' spans as its children; nothing secret is exported. With
 * no OTEL_* variable asking for an export (or OTEL_SDK_DISABLED=true), no OpenTelemetry SDK module is even
 * loaded and nothing is sent. The Redis test needs a Redis (src/services.ts skips it loudly without one, and
 * fails the run instead when CI is set).
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type RunningGateway, startGateway } from '../src/gateway.js';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../src/otlp-receiver.js';
import { createDatabase } from '../src/postgres.js';
import { passwordGrant } from '../src/sign-in.js';

const REDIS_URL = inject('redisUrl');
const PRELOAD = fileURLToPath(new URL('../src/loaded-modules.mjs', import.meta.url));
const SERVER_VERSION = (createRequire(import.meta.url)('../../server/package.json') as { version: string }).version;
const SERVER = 2;
const CLIENT = 3;

/** The standard variables, as a developer's shell might set them: cleared unless a test sets them. */
const NO_OTEL = {
  OTEL_EXPORTER_OTLP_ENDPOINT: '',
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
  OTEL_TRACES_EXPORTER: '',
  OTEL_SDK_DISABLED: '',
  OTEL_EXPORTER_OTLP_PROTOCOL: '',
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: '',
};

/** A W3C `traceparent` of a caller's span: its trace id and span id. */
function callerContext() {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

async function signIn(gateway: RunningGateway, traceparent: string) {
  const { response, password } = await passwordGrant(gateway.url, { headers: { traceparent } });
  expect(response.status, await response.clone().text()).toBe(200);
  const tokens = (await response.json()) as { access_token: string; refresh_token: string };
  return { password, ...tokens };
}

/** The request span of a trace, and the spans whose parent it is. */
function requestAndChildren(spans: ReceivedSpan[], traceId: string) {
  const ofTrace = spans.filter((s) => s.traceId === traceId);
  const request = ofTrace.find((s) => s.kind === SERVER);
  return { request, children: ofTrace.filter((s) => request && s.parentSpanId === request.spanId) };
}

/** Every module a gateway started with the preload loaded (after it stopped). */
const loaded = (file: string) => readFileSync(file, 'utf8');
/** The OpenTelemetry modules beyond the API (which prom-client loads in any case): the SDK, exporters, ours. */
const SDK_MODULE = /@opentelemetry\/(?!api\/)|@fastify\/otel|dist\/tracing-sdk\.js/;

describe('tracing exported over OTLP/HTTP', () => {
  let receiver: OtlpReceiver;
  let folder: string;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    folder = mkdtempSync(path.join(tmpdir(), 'gateway-tracing-'));
  });

  afterAll(async () => {
    await receiver?.close();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it("a sign-in's trace continues the caller's traceparent: the request span, and the SQLite statements' spans as its children, nothing secret exported", async () => {
    const modules = path.join(folder, 'sqlite-modules.txt');
    const gateway = await startGateway({
      ...NO_OTEL,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_SCHEDULE_DELAY: '100',
      NODE_OPTIONS: `--import=${PRELOAD}`,
      LOADED_MODULES_FILE: modules,
    });
    try {
      const caller = callerContext();
      const { password, access_token, refresh_token } = await signIn(gateway, caller.traceparent);
      // A public read with a query string: the path is recorded, the query string never.
      const read = callerContext();
      const answer = await fetch(`${gateway.url}/v1/platforms/ETH?probe=not-to-be-recorded`, {
        headers: { traceparent: read.traceparent },
      });
      expect(answer.status).toBe(200);

      const spans = await receiver.waitFor(
        (all) =>
          requestAndChildren(all, caller.traceId).children.length > 0 &&
          requestAndChildren(all, read.traceId).request !== undefined,
      );
      const { request, children } = requestAndChildren(spans, caller.traceId);
      expect(request).toMatchObject({
        name: 'createToken',
        parentSpanId: caller.spanId,
        attributes: {
          'http.request.method': 'POST',
          'http.route': '/v1/oauth2/token',
          'url.path': '/v1/oauth2/token',
          'http.response.status_code': 200,
          'gateway.operation_id': 'createToken',
        },
        resource: { 'service.name': 'exchange-gateway', 'service.version': SERVER_VERSION },
      });
      expect(children.length).toBeGreaterThan(0);
      for (const child of children) {
        expect(child.kind).toBe(CLIENT);
        expect(child.attributes['db.system.name']).toBe('sqlite');
        expect(child.attributes['db.operation.name']).toMatch(/^[A-Z]+$/);
      }
      // The sign-in writes its token family: an INSERT among the statements.
      expect(children.map((c) => c.attributes['db.operation.name'])).toContain('INSERT');

      const publicRead = requestAndChildren(spans, read.traceId).request;
      expect(publicRead?.name).toBe('getPlatform');
      expect(publicRead?.attributes['url.path']).toBe('/v1/platforms/ETH');

      const exported = receiver.posts.map((p) => p.body.toString('utf8')).join('\n');
      for (const secret of [password, access_token, refresh_token, 'not-to-be-recorded']) {
        expect(exported).not.toContain(secret);
      }
    } finally {
      await gateway.stop();
    }
    // The control of the tests below: with tracing on, the SDK's modules show in the list.
    expect(loaded(modules)).toMatch(SDK_MODULE);
  });

  it.skipIf(!REDIS_URL)(
    "on PostgreSQL with Redis: a sign-in's trace holds the PostgreSQL statements' and the rate limit's Redis commands' spans, children of the request span",
    async () => {
      const database = await createDatabase();
      const gateway = await startGateway({
        ...NO_OTEL,
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`,
        OTEL_BSP_SCHEDULE_DELAY: '100',
        DATABASE_URL: database.url,
        TOKEN_SIGNING_KEY: generateKeyPairSync('ed25519')
          .privateKey.export({ type: 'pkcs8', format: 'pem' })
          .toString(),
        PROXY_SEED: randomBytes(16).toString('hex'),
        CURSOR_SECRET: randomBytes(32).toString('hex'),
        REDIS_URL,
      });
      try {
        const caller = callerContext();
        await signIn(gateway, caller.traceparent);
        const spans = await receiver.waitFor((all) => {
          const systems = requestAndChildren(all, caller.traceId).children.map((c) => c.attributes['db.system.name']);
          return systems.includes('postgresql') && systems.includes('redis');
        });
        const { request, children } = requestAndChildren(spans, caller.traceId);
        expect(request).toMatchObject({ name: 'createToken', parentSpanId: caller.spanId });
        const postgres = children.filter((c) => c.attributes['db.system.name'] === 'postgresql');
        expect(postgres.map((c) => c.attributes['db.operation.name'])).toContain('INSERT');
        for (const span of postgres) {
          expect(span).toMatchObject({ kind: CLIENT, attributes: { 'server.address': '127.0.0.1' } });
          expect(String(span.attributes['db.query.text'])).not.toMatch(/'[^']*'/); // values are parameters
        }
        const redis = children.filter((c) => c.attributes['db.system.name'] === 'redis');
        const { hostname, port } = new URL(REDIS_URL);
        for (const span of redis) {
          expect(span).toMatchObject({
            kind: CLIENT,
            attributes: { 'server.address': hostname, 'server.port': Number(port || 6379) },
          });
          // The command alone: a key or an argument would be another attribute.
          expect(Object.keys(span.attributes).sort()).toEqual(
            ['db.operation.name', 'db.system.name', 'server.address', 'server.port'].sort(),
          );
        }
        expect(redis.map((s) => s.name).some((name) => /^EVAL(SHA)?$/.test(name))).toBe(true);
      } finally {
        await gateway.stop();
        await database.drop();
      }
    },
    60_000,
  );

  it('OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf exports protobuf to the same URL', async () => {
    const gateway = await startGateway({
      ...NO_OTEL,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    try {
      const caller = callerContext();
      await fetch(`${gateway.url}/v1/platforms/ETH`, { headers: { traceparent: caller.traceparent } });
      const deadline = Date.now() + 15_000;
      const traceId = Buffer.from(caller.traceId, 'hex');
      const carrying = () =>
        receiver.posts.find((p) => p.contentType === 'application/x-protobuf' && p.body.includes(traceId));
      while (!carrying() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(carrying()?.path).toBe('/v1/traces');
      expect(carrying()?.body.includes(Buffer.from('getPlatform'))).toBe(true);
    } finally {
      await gateway.stop();
    }
  });

  it('with no OTEL_* variable asking for an export, no OpenTelemetry SDK module is loaded', async () => {
    const modules = path.join(folder, 'off-modules.txt');
    const gateway = await startGateway({
      ...NO_OTEL,
      NODE_OPTIONS: `--import=${PRELOAD}`,
      LOADED_MODULES_FILE: modules,
    });
    try {
      await signIn(gateway, callerContext().traceparent);
    } finally {
      await gateway.stop();
    }
    const list = loaded(modules);
    expect(list).toContain('server/dist/tracing.js'); // the list is complete: it holds the module that decided
    expect(list).not.toMatch(SDK_MODULE);
  });

  it('OTEL_SDK_DISABLED=true wins over an endpoint: nothing is exported and no SDK module is loaded', async () => {
    const modules = path.join(folder, 'disabled-modules.txt');
    const before = receiver.posts.length;
    const gateway = await startGateway({
      ...NO_OTEL,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SDK_DISABLED: 'true',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      NODE_OPTIONS: `--import=${PRELOAD}`,
      LOADED_MODULES_FILE: modules,
    });
    try {
      await signIn(gateway, callerContext().traceparent);
      // Ten export intervals: anything exported would have arrived.
      await new Promise((resolve) => setTimeout(resolve, 1000));
    } finally {
      await gateway.stop();
    }
    expect(receiver.posts.length).toBe(before);
    expect(loaded(modules)).not.toMatch(SDK_MODULE);
  });
});
