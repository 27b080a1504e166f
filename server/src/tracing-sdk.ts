/**
 * The OpenTelemetry SDK, loaded by tracing.ts only when tracing is on. What it records:
 *
 * - a span per HTTP request (@fastify/otel, Fastify's own instrumentation), named by the operation id, its
 *   parent taken from the request's W3C `traceparent` header;
 * - a span per database statement (SQLite through better-sqlite3, PostgreSQL through pg) and per Redis
 *   command (ioredis), children of the request span that ran them. Work outside a request (the catalogue's
 *   background reload, LISTEN, migrations at start) makes no span, so that traces are requests.
 *
 * Never recorded: query strings, headers, bodies, tokens, passwords, SQL parameters (statements are
 * recorded as Kysely builds them, every value a `$1`/`?` parameter) and Redis arguments (keys included).
 *
 * The database and Redis clients are instrumented by wrapping the methods every query goes through on the
 * drivers' classes (the same module instances the store and the rate limit use), not by module loader
 * hooks: this works under ESM without `--import` flags, and for SQLite, which has no OpenTelemetry
 * instrumentation. The wrappers are installed when tracing starts and removed when it stops.
 */
import { createRequire } from 'node:module';
import { FastifyOtelInstrumentation } from '@fastify/otel';
import {
  type Attributes,
  context,
  DiagLogLevel,
  diag,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import SqliteDatabase from 'better-sqlite3';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import pg from 'pg';

const require = createRequire(import.meta.url);
const { version } = require('../package.json') as { version: string };

/** The traces URL the exporter uses, as the OTLP specification derives it from the variables. */
export function tracesEndpoint(env: Record<string, string | undefined>): string {
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (traces) return traces;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || 'http://localhost:4318';
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}

/** Starts the SDK: what tracing.ts's `Tracing` describes (not imported from there: it imports this module). */
export async function createTracing(env: Record<string, string | undefined>, protocol: 'http/json' | 'http/protobuf') {
  quietDiagnostics();
  const detected = detectResources({ detectors: [envDetector] });
  await detected.waitForAsyncAttributes?.();
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (read by the detector) win over these defaults.
  const resource = resourceFromAttributes({ 'service.name': 'exchange-gateway', 'service.version': version }).merge(
    detected,
  );
  // Both exporters read the other OTEL_EXPORTER_OTLP_* variables (endpoint, headers, timeout, compression).
  const exporter = protocol === 'http/protobuf' ? new ProtobufExporter() : new JsonExporter();
  // The sampler (OTEL_TRACES_SAMPLER, parent-based always-on by default) and the batch's limits
  // (OTEL_BSP_*) come from the environment too.
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter)] });
  // The global tracer, an AsyncLocalStorage context, W3C trace context (and baggage) propagation.
  provider.register();
  const tracer = trace.getTracer('@gateway/server', version);
  const undo = [instrumentSqlite(tracer), instrumentPostgres(tracer), instrumentRedis(tracer)];
  const requests = new FastifyOtelInstrumentation({
    // Only the request's own span: a span for each hook and handler would double the cost for little.
    instrumentHooks: false,
    instrumentHandler: false,
    // An exception's message and stack may quote input; its status (ERROR) says enough.
    recordExceptions: false,
    requestHook: nameRequestSpan,
  });
  const endpoint = tracesEndpoint(env);
  return {
    endpoint,
    protocol,
    async instrument(app: FastifyInstance) {
      await app.register(requests.plugin());
      app.log.info({ tracing: { endpoint, protocol } }, 'tracing: spans exported over OTLP');
    },
    async shutdown() {
      for (const restore of undo) restore();
      requests.disable();
      await provider.shutdown();
      trace.disable();
      context.disable();
    },
  };
}

/** The request span: named by the operation, its path without the query string. */
function nameRequestSpan(span: Span, request: FastifyRequest): void {
  const route = request.routeOptions;
  const operation = route.config.operationId;
  span.updateName(operation ?? (route.url ? `${request.method} ${route.url}` : request.method));
  if (operation) span.setAttribute('gateway.operation_id', operation);
  // @fastify/otel records the URL as received, query string included.
  span.setAttribute('url.path', request.url.split('?')[0] ?? '');
  const agent = request.headers['user-agent'];
  if (agent) span.setAttribute('user_agent.original', agent);
}

/**
 * Export failures are written to standard error, at most one line a minute: a collector that is down must
 * not flood the log (the spans of that time are dropped, the requests are not affected).
 */
function quietDiagnostics(): void {
  let quietUntil = 0;
  const write = (message: string, ...args: unknown[]) => {
    const now = Date.now();
    if (now < quietUntil) return;
    quietUntil = now + 60_000;
    const detail = args.map((a) => (a instanceof Error ? a.message : typeof a === 'string' ? a : '')).join(' ');
    process.stderr.write(
      `tracing: ${message} ${detail}`.trim().concat(' (the next 60 s of such errors are not shown)\n'),
    );
  };
  diag.setLogger(
    { error: write, warn: write, info: () => {}, debug: () => {}, verbose: () => {} },
    { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
  );
}

type Tracer = ReturnType<typeof trace.getTracer>;

/** What a statement's span says of it: its operation, its table when one is named, its text. */
interface Statement {
  name: string;
  attributes: Attributes;
}

const statements = new Map<string, Statement>();

/** A statement's span name and attributes (kept by text: the gateway runs a few hundred distinct ones). */
function describeStatement(system: string, text: string): Statement {
  const key = `${system}\n${text}`;
  let described = statements.get(key);
  if (!described) {
    let operation = /^\s*([a-z]+)/i.exec(text)?.[1]?.toUpperCase() ?? 'QUERY';
    // A statement with common table expressions is named by what it does: the first write, else a read.
    if (operation === 'WITH') operation = /\b(insert|update|delete)\b/i.exec(text)?.[1]?.toUpperCase() ?? 'SELECT';
    const table = /\b(?:from|into|update|join)\s+"?([a-z_][a-z0-9_]*)"?/i.exec(text)?.[1];
    described = {
      name: table ? `${operation} ${table}` : operation,
      attributes: {
        'db.system.name': system,
        'db.operation.name': operation,
        'db.query.text': text,
        ...(table ? { 'db.collection.name': table } : {}),
      },
    };
    if (statements.size >= 1000) statements.delete(statements.keys().next().value as string);
    statements.set(key, described);
  }
  return described;
}

/** A client span, or null outside a request (see the module's comment). */
function childSpan(tracer: Tracer, name: string, attributes: Attributes): Span | null {
  if (trace.getSpan(context.active()) === undefined) return null;
  return tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes });
}

function fail(span: Span, error: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: (error as { code?: string })?.code ?? 'error' });
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'string') span.setAttribute('db.response.status_code', code);
}

/** Replaces `target[method]` by `wrap(original)`; returns what puts the original back. */
function replace<T extends object, K extends keyof T>(target: T, method: K, wrap: (original: T[K]) => T[K]) {
  const original = target[method];
  target[method] = wrap(original);
  return () => {
    target[method] = original;
  };
}

/** better-sqlite3 runs statements synchronously: a span around each call of a statement. */
function instrumentSqlite(tracer: Tracer): () => void {
  const probe = new SqliteDatabase(':memory:');
  const prototype = Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, unknown>;
  probe.close();
  const restores = (['run', 'get', 'all', 'iterate'] as const).map((method) =>
    replace(
      prototype,
      method,
      (original) =>
        function traced(this: SqliteDatabase.Statement, ...args: unknown[]) {
          const call = original as (...a: unknown[]) => unknown;
          const { name, attributes } = describeStatement('sqlite', this.source);
          const span = childSpan(tracer, name, attributes);
          if (!span) return call.apply(this, args);
          try {
            return call.apply(this, args);
          } catch (error) {
            fail(span, error);
            throw error;
          } finally {
            span.end();
          }
        },
    ),
  );
  return () => {
    for (const restore of restores) restore();
  };
}

type QueryArgs = [config: unknown, values?: unknown, callback?: unknown];

/**
 * pg: every query (Kysely's, the store's own, a transaction's) goes through `Client#query`. A pool's
 * `connect(callback)` calls back in whichever context released a connection; it is bound to its caller's,
 * so that a query waiting for a connection stays in its own request's trace.
 */
function instrumentPostgres(tracer: Tracer): () => void {
  const client = pg.Client.prototype as unknown as Record<string, unknown>;
  const pool = pg.Pool.prototype as unknown as Record<string, unknown>;
  const restoreQuery = replace(
    client,
    'query',
    (original) =>
      function traced(this: pg.Client, ...args: QueryArgs) {
        const query = original as (...a: QueryArgs) => unknown;
        const [config] = args;
        const text = typeof config === 'string' ? config : (config as { text?: unknown } | null)?.text;
        if (typeof text !== 'string' || typeof (config as { submit?: unknown })?.submit === 'function') {
          return query.apply(this, args);
        }
        const { name, attributes } = describeStatement('postgresql', text);
        const span = childSpan(tracer, name, {
          ...attributes,
          ...(this.host ? { 'server.address': this.host } : {}),
          ...(this.port ? { 'server.port': this.port } : {}),
          ...(this.database ? { 'db.namespace': this.database } : {}),
        });
        if (!span) return query.apply(this, args);
        const end = (error: unknown) => {
          if (error) fail(span, error);
          span.end();
        };
        const last = args.findLastIndex((a) => typeof a === 'function');
        if (last > 0) {
          const callback = args[last] as (error: unknown, result: unknown) => void;
          args[last] = (error: unknown, result: unknown) => {
            end(error);
            callback(error, result);
          };
          return query.apply(this, args);
        }
        try {
          const result = query.apply(this, args) as Promise<unknown>;
          result.then(
            () => end(null),
            (error: unknown) => end(error),
          );
          return result;
        } catch (error) {
          end(error);
          throw error;
        }
      },
  );
  const restoreConnect = replace(
    pool,
    'connect',
    (original) =>
      function bound(this: pg.Pool, ...args: unknown[]) {
        const connect = original as (...a: unknown[]) => unknown;
        const [callback] = args;
        return typeof callback === 'function'
          ? connect.call(this, context.bind(context.active(), callback as (...a: unknown[]) => unknown))
          : connect.apply(this, args);
      },
  );
  return () => {
    restoreQuery();
    restoreConnect();
  };
}

/** ioredis: every command (scripts such as the rate limit's included) goes through `Redis#sendCommand`. */
function instrumentRedis(tracer: Tracer): () => void {
  const prototype = Redis.prototype as unknown as Record<string, unknown>;
  return replace(
    prototype,
    'sendCommand',
    (original) =>
      function traced(this: Redis, command: { name: string; promise: Promise<unknown> }, ...rest: unknown[]) {
        const send = original as (...a: unknown[]) => unknown;
        const operation = command.name.toUpperCase();
        const span = childSpan(tracer, operation, {
          'db.system.name': 'redis',
          'db.operation.name': operation,
          ...(this.options.host ? { 'server.address': this.options.host } : {}),
          ...(this.options.port ? { 'server.port': this.options.port } : {}),
        });
        if (span) {
          command.promise.then(
            () => span.end(),
            (error: unknown) => {
              span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.message ?? 'error' });
              span.end();
            },
          );
        }
        return send.call(this, command, ...rest);
      },
  );
}
