/**
 * OpenTelemetry tracing, on only when the standard OTEL_* variables ask for an OTLP export. Off (the
 * default), this module is all that is loaded: the SDK and the instrumentation are imported only when
 * tracing starts, so an instance that does not trace runs exactly the code it ran before tracing existed.
 * What is traced, and what never is, is in tracing-sdk.ts.
 */
import type { FastifyInstance } from 'fastify';

/** A tracing set up by `startTracing`. */
export interface Tracing {
  /** Where spans go (the OTLP/HTTP traces URL) and how (`http/json` or `http/protobuf`). */
  readonly endpoint: string;
  readonly protocol: OtlpProtocol;
  /** Adds the request spans to an app: registered before any other plugin, so that they enclose them. */
  instrument(app: FastifyInstance): Promise<void>;
  /** Exports the spans not yet sent and stops (after the app has closed, so that its last spans go too). */
  shutdown(): Promise<void>;
}

export type OtlpProtocol = 'http/json' | 'http/protobuf';

export class TracingConfigError extends Error {}

const set = (value: string | undefined): value is string => value !== undefined && value.trim() !== '';

/** Whether the standard variables ask for traces to be exported over OTLP, and how. */
export function tracingWanted(env: Record<string, string | undefined>): { protocol: OtlpProtocol } | null {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return null;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  const unknown = exporters.filter((name) => name !== 'otlp' && name !== 'none');
  if (unknown.length > 0) {
    throw new TracingConfigError(
      `invalid configuration: OTEL_TRACES_EXPORTER=${env.OTEL_TRACES_EXPORTER} is not supported (otlp or none)`,
    );
  }
  // `none` alone says no; `otlp`, or an endpoint with no exporter named, says yes.
  if (exporters.length > 0 && !exporters.includes('otlp')) return null;
  if (
    !exporters.includes('otlp') &&
    !set(env.OTEL_EXPORTER_OTLP_ENDPOINT) &&
    !set(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
  ) {
    return null;
  }
  const name = set(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL)
    ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
    : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = (env[name] ?? '').trim() || 'http/json';
  if (protocol !== 'http/json' && protocol !== 'http/protobuf') {
    throw new TracingConfigError(
      `invalid configuration: ${name}=${protocol} is not supported: the gateway exports OTLP over HTTP ` +
        '(http/json or http/protobuf, to the collector’s HTTP port, 4318 by default)',
    );
  }
  return { protocol };
}

/**
 * Starts tracing when the environment asks for it (the SDK loaded then, and only then); null otherwise.
 * Call it before the app and its store are built: the database and Redis clients are instrumented as
 * tracing starts.
 */
export async function startTracing(env: Record<string, string | undefined> = process.env): Promise<Tracing | null> {
  const wanted = tracingWanted(env);
  if (!wanted) return null;
  const { createTracing } = await import('./tracing-sdk.js');
  return createTracing(env, wanted.protocol);
}
