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
 * The database and Redis drivers' spans are made in tracing-drivers.ts.
 */
import { FastifyOtelInstrumentation } from '@fastify/otel';
import { context, DiagLogLevel, diag, type Span, trace } from '@opentelemetry/api';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { instrumentPostgres, instrumentRedis, instrumentSqlite } from './tracing-drivers.js';
import { VERSION } from './version.js';

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
  const resource = resourceFromAttributes({ 'service.name': 'exchange-gateway', 'service.version': VERSION }).merge(
    detected,
  );
  // Both exporters read the other OTEL_EXPORTER_OTLP_* variables (endpoint, headers, timeout, compression).
  const exporter = protocol === 'http/protobuf' ? new ProtobufExporter() : new JsonExporter();
  // The sampler (OTEL_TRACES_SAMPLER, parent-based always-on by default) and the batch's limits
  // (OTEL_BSP_*) come from the environment too.
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter)] });
  // The global tracer, an AsyncLocalStorage context, W3C trace context (and baggage) propagation.
  provider.register();
  const tracer = trace.getTracer('@gateway/server', VERSION);
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
