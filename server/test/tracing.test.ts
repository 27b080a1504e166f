/**
 * When tracing is on: only when the standard OTEL_* variables ask for an OTLP export (the exporter, spans and
 * the OTLP receiver are tested against the built server in test/cluster/tracing.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { startTracing, TracingConfigError, tracingWanted } from '../src/tracing.js';

describe('tracingWanted', () => {
  it('is off with no OTEL_* variable, and with variables that ask for no export', () => {
    expect(tracingWanted({})).toBeNull();
    expect(tracingWanted({ OTEL_SERVICE_NAME: 'gateway-a', OTEL_EXPORTER_OTLP_ENDPOINT: '  ' })).toBeNull();
    expect(tracingWanted({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toBeNull();
  });

  it('is on with an endpoint (either variable) or OTEL_TRACES_EXPORTER=otlp, in JSON unless told otherwise', () => {
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toEqual({ protocol: 'http/json' });
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' })).toEqual({
      protocol: 'http/json',
    });
    expect(tracingWanted({ OTEL_TRACES_EXPORTER: 'otlp' })).toEqual({ protocol: 'http/json' });
    expect(tracingWanted({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' })).toEqual({
      protocol: 'http/protobuf',
    });
    // The traces' own variable wins over the general one.
    expect(
      tracingWanted({
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      }),
    ).toEqual({ protocol: 'http/json' });
  });

  it('OTEL_SDK_DISABLED=true wins over everything that asks for an export', () => {
    expect(
      tracingWanted({
        OTEL_SDK_DISABLED: 'TRUE',
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c',
      }),
    ).toBeNull();
    expect(tracingWanted({ OTEL_SDK_DISABLED: 'false', OTEL_TRACES_EXPORTER: 'otlp' })).toEqual({
      protocol: 'http/json',
    });
  });

  it('refuses, in one sentence naming the variable, an exporter or a protocol it does not have', () => {
    expect(() => tracingWanted({ OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(
      new TracingConfigError('invalid configuration: OTEL_TRACES_EXPORTER=zipkin is not supported (otlp or none)'),
    );
    expect(() =>
      tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' }),
    ).toThrow(/^invalid configuration: OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=grpc is not supported/);
  });

  it('startTracing loads nothing and returns null when tracing is off', async () => {
    expect(await startTracing({})).toBeNull();
  });
});
