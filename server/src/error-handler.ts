/**
 * The one error handler: every failure, ours or the framework's, is answered in the spec's error body with
 * its catalogue code and status; server errors are logged with the request id, never sent (a database
 * outage is logged once, when it starts and when it ends). Requests that match no route get
 * plugins/unrouted.ts's answer.
 */
import type { ErrorName } from '@gateway/generated';
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import type { Services } from './context.js';
import { ApiError, errorBody } from './errors.js';
import { logsRequests } from './plugins/observability.js';
import { unrouted } from './plugins/unrouted.js';
import { databaseUnavailable, storageFull } from './store/unavailable.js';

/** What a write refused for a full disk asks the client to wait (seconds): space is freed by a person. */
const STORAGE_FULL_RETRY_SECONDS = 30;

type JsonSchema = {
  oneOf?: JsonSchema[];
  properties?: Record<string, { const?: unknown }>;
  'x-unknown-tag-error'?: ErrorName;
};
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
    const unknownTag = schema?.['x-unknown-tag-error'];
    return unknownTag
      ? new ApiError(unknownTag)
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

function retryAfterOf(error: unknown): number {
  const ttl = Number((error as { ttl?: number }).ttl);
  return Number.isFinite(ttl) && ttl > 0 ? Math.ceil(ttl / 1000) : 60;
}

/** A security handler's failure that is not one of our refusals (glue collects them in `errors`). */
function unexpectedCauseOf(error: { errors?: unknown[] }): unknown {
  return error.errors?.find((e) => !(e instanceof ApiError));
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
  // A write refused for a full disk: nothing of it was kept, and reads go on (store/availability.ts).
  if (storageFull(error)) {
    return new ApiError('storage_full', undefined, { headers: { 'retry-after': String(STORAGE_FULL_RETRY_SECONDS) } });
  }
  if (databaseUnavailable(error)) {
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
  // Any other refusal of a plugin is the client's request, not a failure of ours: never a 500 to log.
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return new ApiError('invalid_parameter', 'The request is invalid');
  }
  return new ApiError('internal_error', 'Internal server error');
}

/**
 * Whether the request failed because its client closed the connection before its body was read (Node's
 * `aborted` on the request stream): the client's doing, not the database's nor ours.
 */
export function clientAborted(error: { code?: unknown; message?: string }, request: FastifyRequest): boolean {
  return error.code === 'ECONNRESET' && error.message === 'aborted' && request.raw.destroyed;
}

/** Installs the error and not-found handlers (before the routes: route contexts take those in force). */
export function errorHandling(
  app: FastifyInstance,
  { metrics, database }: Pick<Services, 'metrics' | 'database'>,
): void {
  app.setNotFoundHandler(async (request, reply) => unrouted(request, reply));

  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    // A client that went away while its body was read: its abort line is logged (observability), nothing more.
    if (clientAborted(error, request)) return reply.code(400).send(errorBody('body_unreadable'));
    const apiError = toApiError(error, request);
    // Operations the spec marks `x-refusals-counted` (the token endpoint) count every refusal by reason.
    if (request.routeOptions.config.refusalsCounted) metrics.tokenRefused(apiError.kind);
    // A failure we did not mean is logged, with its stack. Not a 5xx we answer on purpose (readiness during an
    // outage), nor a database outage, which the watch logs once (lost, then back) however many requests fail.
    if (apiError.status >= 500 && !(error instanceof ApiError) && !database.failed(error)) {
      // The request's child logger carries its id when request lines are logged; otherwise name it here.
      const reqId = logsRequests(request.log.level) ? {} : { reqId: request.id };
      request.log.error(
        { ...reqId, err: unexpectedCauseOf(error as { errors?: unknown[] }) ?? error },
        'request failed',
      );
    }
    if (apiError.kind === 'invalid_access_token') {
      reply.header('www-authenticate', 'Bearer realm="gateway", error="invalid_token"');
    }
    return reply.code(apiError.status).headers(apiError.headers).send(apiError.toBody());
  });
}
