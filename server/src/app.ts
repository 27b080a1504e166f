/**
 * The application: the generated document mounted by fastify-openapi-glue over the handler map, one error
 * handler that answers every failure with the spec's error body and catalogue code, and the store.
 * `buildApp` never listens; `server.ts` does.
 */
import { createRequire } from 'node:module';
import cors from '@fastify/cors';
import formbody from '@fastify/formbody';
import rateLimit from '@fastify/rate-limit';
import { type HandlerMap, type OperationId, type OperationMeta, operationMeta } from '@gateway/generated';
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
  type RouteOptions,
} from 'fastify';
import openapiGlue from 'fastify-openapi-glue';
import { Redis } from 'ioredis';
import type { Config } from './config.js';
import type { Context, Services } from './context.js';
import { createCursorCodec } from './domain/cursor.js';
import { type Caller, verifyAccessToken } from './domain/tokens.js';
import { ApiError, errorBody } from './errors.js';
import { handlers as defaultHandlers } from './handlers/index.js';
import { JsonText } from './handlers/present.js';
import { createMetrics } from './metrics.js';
import { docs } from './plugins/docs.js';
import { API_HEADERS, logsRequests, observability, UNMATCHED } from './plugins/observability.js';
import { loadSecrets } from './secrets.js';
import { openStore, type Store } from './store/store.js';
import { createCatalogueCache } from './store/terms.js';

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
    /** The request's label for logs and metrics: its operationId, else its route, else `unmatched`. */
    operation: string;
  }
  interface FastifyContextConfig {
    operationId?: OperationId;
  }
}

/** The bundled spec (generated). */
export const specification = createRequire(import.meta.url)('@gateway/generated/openapi.json') as Record<
  string,
  unknown
>;

/** The body limit the spec states (16 KiB). */
export const BODY_LIMIT = 16 * 1024;

export interface AppOptions {
  /** A store to use instead of opening `config.databaseUrl` (the app then does not close it). */
  store?: Store;
  /** The clock, milliseconds (tests move it). */
  now?: () => number;
  /** The handler map (the real one by default; tests replace it). */
  handlers?: HandlerMap<Context>;
  /** Where log lines go (standard output by default). */
  logStream?: { write(line: string): void };
}

type AnyHandler = (
  request: { params: unknown; query: unknown; body: unknown; headers: FastifyRequest['headers'] },
  context: Context,
) => Promise<{ status: number; body: unknown; headers?: Readonly<Record<string, string>> }>;

/** `Deprecation` (RFC 9745) and `Link` to the successor, with the platform the reply was served on. */
function deprecationHeaders(
  meta: OperationMeta,
  params: Record<string, string>,
  body: unknown,
): Record<string, string> {
  const headers: Record<string, string> = {};
  if (meta.deprecatedAt) headers.deprecation = `@${Math.floor(Date.parse(meta.deprecatedAt) / 1000)}`;
  if (meta.successor) {
    const reply = body as { platform_id?: string; currency?: { platform_id?: string } };
    const values: Record<string, string | undefined> = {
      ...params,
      platform: reply.platform_id ?? reply.currency?.platform_id,
    };
    const successor = operationMeta[meta.successor].path.replace(/\{([^}]+)\}/g, (_, name: string) =>
      encodeURIComponent(values[name] ?? ''),
    );
    headers.link = `<${successor}>; rel="successor-version"`;
  }
  return headers;
}

/** Whether an `Accept` header admits one of `produced` (absent, or a range covering one with q > 0). */
export function acceptable(accept: string | undefined, produced: readonly string[]): boolean {
  if (!accept) return true;
  return accept.split(',').some((range) => {
    const [type = '', ...parameters] = range.trim().toLowerCase().split(';');
    const q = parameters.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (q && Number(q.slice(2)) === 0) return false;
    const wanted = type.trim();
    return (
      wanted === '*/*' ||
      produced.some((media) => media === wanted || (wanted.endsWith('/*') && media.startsWith(wanted.slice(0, -1))))
    );
  });
}

const templateMatchers = Object.values(operationMeta).map((meta) => ({
  method: meta.method,
  pattern: new RegExp(`^${meta.path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
}));

/** The methods a path supports, for 405 (empty when no operation has the path). */
function methodsAt(pathname: string): string[] {
  const methods = templateMatchers.filter((m) => m.pattern.test(pathname)).map((m) => m.method);
  return methods.includes('GET') ? [...methods, 'HEAD'] : methods;
}

type JsonSchema = { oneOf?: JsonSchema[]; properties?: Record<string, { const?: unknown }> };
type ValidationIssue = NonNullable<FastifyError['validation']>[number];

/**
 * For a body that fails a `oneOf` of branches told apart by a `const` property (the token request's
 * `grant_type`), the issues of the branch the body's tag selects, or the error the tag itself is.
 */
function oneOfBranchIssues(
  schema: JsonSchema | undefined,
  body: unknown,
  issues: ValidationIssue[],
): ApiError | ValidationIssue[] {
  const branches = schema?.oneOf;
  if (!branches || typeof body !== 'object' || body === null || Array.isArray(body)) return issues;
  // Branches without properties (the token request's empty body) carry no tag.
  const tagged = branches.filter((branch) => branch.properties !== undefined);
  const tag = Object.keys(tagged[0]?.properties ?? {}).find((name) =>
    tagged.every((branch) => branch.properties?.[name]?.const !== undefined),
  );
  if (!tag) return issues;
  const value = (body as Record<string, unknown>)[tag];
  if (value === undefined) {
    return new ApiError('missing_parameter', `body/${tag} is required`, { details: { parameter: tag } });
  }
  const index = branches.findIndex((branch) => branch.properties?.[tag]?.const === value);
  if (index < 0) {
    return tag === 'grant_type'
      ? new ApiError('unsupported_grant_type')
      : new ApiError('invalid_parameter', `body/${tag} is not one of the allowed values`, {
          details: { parameter: tag },
        });
  }
  const own = issues.filter((issue) => issue.schemaPath.startsWith(`#/oneOf/${index}/`));
  return own.length > 0 ? own : issues;
}

/** The body schema a request was validated against, for its content type. */
function bodySchemaOf(request: FastifyRequest | undefined): JsonSchema | undefined {
  const body = request?.routeOptions.schema?.body as { content?: Record<string, { schema?: JsonSchema }> } | undefined;
  const type = request?.headers['content-type']?.split(';')[0]?.trim().toLowerCase() ?? '';
  return body?.content?.[type]?.schema;
}

/** Connection-level database failures: the request fails fast with 503 and the pool recovers by itself. */
function isDatabaseUnavailable(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  const codes = [
    'ECONNREFUSED',
    'ECONNRESET',
    'ETIMEDOUT',
    'EPIPE',
    'SQLITE_BUSY',
    '57P01',
    '57P02',
    '57P03',
    '08000',
    '08001',
    '08003',
    '08006',
  ];
  return (
    (e?.code !== undefined && codes.includes(e.code)) ||
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
      e?.message ?? '',
    )
  );
}

function retryAfterOf(error: unknown): number {
  const ttl = Number((error as { ttl?: number }).ttl);
  return Number.isFinite(ttl) && ttl > 0 ? Math.ceil(ttl / 1000) : 60;
}

/** A security handler's failure that is not one of our refusals (glue collects them in `errors`). */
function unexpectedCauseOf(error: { errors?: unknown[] }): unknown {
  return error.errors?.find((e) => !(e instanceof ApiError));
}

/** The validator lets a coerced "Infinity" or "1e309" through as a number: no parameter is infinite. */
function assertFinite(request: FastifyRequest, names: readonly string[]): void {
  for (const [where, values] of [
    ['querystring', request.query],
    ['params', request.params],
  ] as const) {
    for (const name of names) {
      const value = (values as Record<string, unknown> | undefined)?.[name];
      if (typeof value === 'number' && !Number.isFinite(value)) {
        throw new ApiError('invalid_parameter', `${where}/${name} must be a finite number`, {
          details: { parameter: name },
        });
      }
    }
  }
}

const isEmptyObject = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;

/** Fastify validates a body only in the content types the operation lists: refuse the others. */
function bodyContentTypes(accepted: readonly string[]) {
  return async (request: FastifyRequest) => {
    const contentType = request.headers['content-type'];
    if (contentType === undefined) return;
    const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
    if (!accepted.includes(type)) throw new ApiError('unsupported_media_type');
  };
}

/** Turns any failure into a catalogue error. */
export function toApiError(error: FastifyError & { errors?: unknown[] }, request?: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error;
  if (error.name === 'Unauthorized' || error.statusCode === 401) {
    // Glue wraps whatever a security handler throws: only our own refusals are 401s, a bug is a 500.
    if (unexpectedCauseOf(error)) return new ApiError('internal_error', 'Internal server error');
    const cause = error.errors?.find((e) => e instanceof ApiError);
    return cause instanceof ApiError ? cause : new ApiError('invalid_access_token');
  }
  if (error.validation) {
    const issues =
      error.validationContext === 'body'
        ? oneOfBranchIssues(bodySchemaOf(request), request?.body, error.validation)
        : error.validation;
    if (issues instanceof ApiError) return issues;
    const [first] = issues;
    const where = error.validationContext ?? 'request';
    const params = (first?.params ?? {}) as Record<string, unknown>;
    const property =
      (params.missingProperty as string | undefined) ?? first?.instancePath.split('/').filter(Boolean)[0] ?? where;
    const missing = first?.keyword === 'required';
    const message = `${where}/${property} ${missing ? 'is required' : (first?.message ?? 'is invalid')}`;
    return new ApiError(missing ? 'missing_parameter' : 'invalid_parameter', message, {
      details: { parameter: property },
    });
  }
  if (error.statusCode === 429) {
    return new ApiError('rate_limited', undefined, { headers: { 'retry-after': String(retryAfterOf(error)) } });
  }
  if (isDatabaseUnavailable(error)) {
    return new ApiError('service_unavailable', undefined, { headers: { 'retry-after': '5' } });
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('unsupported_media_type');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError('body_unreadable');
  }
  if (error instanceof SyntaxError || (error.statusCode === 400 && /body|JSON/i.test(error.message))) {
    return new ApiError('body_unreadable');
  }
  if (error.statusCode === 400) return new ApiError('invalid_parameter', 'The request is invalid');
  // A plugin refusing a path (the reference page's static files) is, for the API, a path with nothing at it.
  if (error.statusCode === 403 || error.statusCode === 404) return new ApiError('route_not_found');
  return new ApiError('internal_error', 'Internal server error');
}

export async function buildApp(config: Config, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    bodyLimit: BODY_LIMIT,
    logger: {
      level: config.logLevel,
      ...(options.logStream ? { stream: options.logStream } : {}),
      // Never log query strings (deployed clients send passwords there), headers or bodies.
      serializers: {
        req: (req) => ({ id: req.id, method: req.method, path: String(req.url).split('?')[0] }),
        res: (res) => ({ statusCode: res.statusCode }),
      },
    },
    requestIdHeader: 'x-request-id',
    // Every request line is logged once, by the observability hook.
    logController: new LogController({ disableRequestLogging: true }),
    // A per-request child logger (with the request id) only when request lines are logged at all; error
    // lines name the request id themselves.
    childLoggerFactory: (logger, bindings, options) =>
      logsRequests(logger.level) ? logger.child(bindings, options) : logger,
    // Long enough for every path parameter the spec allows (Fastify's default, 100, is not).
    routerOptions: { maxParamLength: 256 },
    requestTimeout: 30_000,
    // URLs the router cannot read (bad percent-encoding, a path parameter longer than any the spec allows)
    // are answered in the spec's error body like any other invalid request.
    frameworkErrors: (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
      const message =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? 'A path parameter is longer than any the API accepts'
          : 'The URL is not valid';
      reply.code(400).send(errorBody('invalid_parameter', message));
    },
    // Requests Node's HTTP parser refuses never reach Fastify: answer them in the error body too.
    clientErrorHandler: (error, socket) => {
      if (!socket.writable) {
        socket.destroy(error);
        return;
      }
      const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
      // An answer to HEAD has no body (its length is still given). Node passes the unparsed bytes.
      const raw: unknown = error.rawPacket;
      const head = Buffer.isBuffer(raw) && raw.toString('latin1', 0, 5) === 'HEAD ';
      const body = JSON.stringify(
        tooLarge ? errorBody('headers_too_large') : errorBody('invalid_parameter', 'The request is not valid HTTP'),
      );
      socket.end(
        `HTTP/1.1 ${tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\n` +
          `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${head ? '' : body}`,
      );
    },
    connectionTimeout: 60_000,
    // Behind TRUST_PROXY_HOPS load balancers, X-Forwarded-For gives the client's address to the limits.
    trustProxy: (_address: string, hop: number) => hop < config.trustProxyHops,
  });

  const store = options.store ?? openStore(config.databaseUrl, { poolSize: config.databasePoolSize });
  if (!options.store) app.addHook('onClose', () => store.close());
  await store.migrate();
  const secrets = loadSecrets(config, (message) => app.log.warn(message));
  const metrics = createMetrics(store);
  const now = options.now ?? Date.now;
  const services: Services = {
    db: store.db,
    store,
    metrics,
    catalogue: createCatalogueCache(store.db, now),
    config,
    cursors: createCursorCodec(secrets.cursorSecret),
    tokens: {
      chainId: config.chainId,
      clientIds: config.clientIds,
      refreshTokenTtl: config.refreshTokenTtl,
      signingKey: secrets.signingKey,
      keyId: secrets.keyId,
      verifyingKeys: secrets.verifyingKeys,
      verified: new Map(),
    },
    proxySeed: secrets.proxySeed,
    now,
  };
  const publicContext: Context = Object.freeze({ ...services, caller: null });

  // What every request gets, in one hook (each hook costs a few percent of a small answer), taking a
  // callback rather than returning a promise (no promise and no microtask per request).
  app.decorateRequest('operation', UNMATCHED);
  app.addHook('onRequest', (request, reply, done) => {
    // Read once: Fastify builds a new object on every access to `routeOptions` (about 1 µs each).
    const route = request.routeOptions;
    const operationId = route.config.operationId;
    request.operation = operationId ?? route.url ?? UNMATCHED;
    const docsPage = request.url.startsWith('/docs');
    // The API reference page brings its own policy; everything else is data, never a document.
    if (!docsPage) reply.headers(API_HEADERS);
    // Operations answer in the media types the spec gives them (JSON, or text for metrics); errors in JSON.
    const produced = operationId ? operationMeta[operationId].responseContentTypes : ['application/json'];
    if (!docsPage && !acceptable(request.headers.accept, produced)) {
      done(new ApiError('not_acceptable'));
      return;
    }
    // An empty body is no body, whatever type it declares (deployed clients send an empty JSON body to the
    // token endpoint with the parameters in the query string).
    const { headers } = request;
    const empty =
      headers['content-length'] === '0' || (headers['content-length'] === undefined && !headers['transfer-encoding']);
    if (empty && headers['content-type'] !== undefined) delete headers['content-type'];
    done();
  });

  await app.register(formbody, { bodyLimit: BODY_LIMIT });
  if (config.corsOrigins.length > 0) {
    await app.register(cors, {
      origin: config.corsOrigins.includes('*') ? '*' : config.corsOrigins,
      methods: ['GET', 'HEAD', 'POST'],
      allowedHeaders: ['Authorization', 'Content-Type', 'Accept'],
      exposedHeaders: ['Deprecation', 'Link', 'Retry-After', 'WWW-Authenticate'],
      maxAge: 600,
    });
  }
  // Limits apply where a route asks for one (the token endpoint); over the limit is a 429 in the error body.
  // With REDIS_URL, every instance counts against the same limits; without it, each counts alone.
  const redis = config.redisUrl
    ? new Redis(config.redisUrl, { maxRetriesPerRequest: 1, connectTimeout: 2000, lazyConnect: false })
    : null;
  if (redis) {
    redis.on('error', (error) => app.log.warn({ err: error }, 'redis'));
    app.addHook('onClose', async () => {
      await redis.quit().catch(() => redis.disconnect());
    });
  }
  await app.register(rateLimit, {
    global: false,
    ...(redis ? { redis, nameSpace: 'gateway-rate-limit-', skipOnError: true } : {}),
    errorResponseBuilder: (_request, context) =>
      Object.assign(new Error('rate limited'), { statusCode: 429, ttl: context.ttl }),
  });

  observability(app, metrics);
  await docs(app, specification);

  // Set before the routes are mounted: route contexts take the handlers in force when they are created.
  app.setNotFoundHandler(async (request, reply) => {
    const pathname = request.url.split(/[?#]/)[0] ?? '';
    const methods = methodsAt(pathname);
    if (methods.length > 0) {
      return reply
        .code(405)
        .header('allow', methods.join(', '))
        .send(errorBody('method_not_allowed', `Method ${request.method} is not allowed here`));
    }
    return reply.code(404).send(errorBody('route_not_found'));
  });

  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    const apiError = toApiError(error, request);
    if (request.operation === 'createToken') metrics.tokenRefused(apiError.kind);
    if (apiError.status >= 500)
      request.log.error(
        { reqId: request.id, err: unexpectedCauseOf(error as { errors?: unknown[] }) ?? error },
        'request failed',
      );
    if (apiError.kind === 'invalid_access_token') {
      reply.header('www-authenticate', 'Bearer realm="gateway", error="invalid_token"');
    }
    return reply.code(apiError.status).headers(apiError.headers).send(apiError.toBody());
  });

  // Glue spreads what the resolver returns over the route it builds; method and url are given exactly as
  // glue makes them (`{param}` becomes `:param`), its schema is kept.
  const routeOptions = (operationId: string, method: string, openapiPath: string): RouteOptions => {
    const handlers: Record<string, unknown> = options.handlers ?? defaultHandlers;
    // The compiler already requires every handler; this refuses to start if one is missing all the same.
    if (typeof handlers[operationId] !== 'function')
      throw new Error(`no handler for operation ${operationId} of the spec`);
    const id = operationId as OperationId;
    const meta = operationMeta[id];
    const handler = handlers[id] as unknown as AnyHandler;
    const noStore = meta.security.length > 0 || id === 'createToken';
    return {
      method: method.toUpperCase() as RouteOptions['method'],
      url: openapiPath.replace(/{(\w+)}/g, ':$1'),
      config: {
        operationId: id,
        ...(id === 'createToken' ? { rateLimit: { max: config.tokenRateLimit, timeWindow: 60_000 } } : {}),
      },
      ...(meta.bodyContentTypes.length > 0 ? { preValidation: bodyContentTypes(meta.bodyContentTypes) } : {}),
      // Before validation, so that refusals carry it too.
      onRequest: noStore
        ? (_request: FastifyRequest, reply: FastifyReply, done: () => void) => {
            reply.header('cache-control', 'no-store');
            done();
          }
        : undefined,
      // No preHandler here: glue's route preHandler is the security check, and it must not be replaced.
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        if (meta.numericParameters.length > 0) assertFinite(request, meta.numericParameters);
        // A body that carries no parameter (`{}`, which the spec admits) is no body, for the handler and the
        // metrics alike.
        if (isEmptyObject(request.body)) request.body = undefined;
        // Public operations share one context; a signed-in call gets its own, with its caller.
        const caller = request.caller;
        const result = await handler(
          { params: request.params ?? {}, query: request.query ?? {}, body: request.body, headers: request.headers },
          caller ? { ...services, caller } : publicContext,
        );
        if (meta.deprecated) {
          reply.headers(deprecationHeaders(meta, (request.params ?? {}) as Record<string, string>, result.body));
        }
        if (result.headers) reply.headers(result.headers);
        // Stored JSON text goes out as it is; objects through the response schema's serializer.
        if (result.body instanceof JsonText) {
          return reply.code(result.status).type('application/json; charset=utf-8').send(result.body.json);
        }
        return reply.code(result.status).send(result.body);
      },
    };
  };

  await app.register(openapiGlue, {
    specification,
    operationResolver: routeOptions,
    securityHandlers: {
      bearer: async (request: FastifyRequest) => {
        request.caller = await verifyAccessToken(
          request.headers.authorization,
          services.tokens,
          Math.floor(services.now() / 1000),
        );
      },
    },
  });

  return app;
}
