/**
 * Spans of the database and Redis drivers, for tracing-sdk.ts: a span per SQLite statement (better-sqlite3),
 * PostgreSQL query (pg) and Redis command (ioredis), a child of the request span that ran it; none outside a
 * request. The methods every query goes through are wrapped on the drivers' classes (the same module
 * instances the store and the rate limit use), not through module loader hooks: this works under ESM without
 * `--import` flags, and for SQLite, which has no OpenTelemetry instrumentation. Each `instrument…` returns
 * what removes its wrappers. Never recorded: SQL parameters and Redis arguments.
 */
import { type Attributes, context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import SqliteDatabase from 'better-sqlite3';
import { Redis } from 'ioredis';
import pg from 'pg';

export type Tracer = ReturnType<typeof trace.getTracer>;

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
export function instrumentSqlite(tracer: Tracer): () => void {
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
export function instrumentPostgres(tracer: Tracer): () => void {
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
export function instrumentRedis(tracer: Tracer): () => void {
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
