/**
 * Content negotiation and the empty-body rule. Operations answer in the media types the spec gives them
 * (JSON, or text for metrics) and errors in JSON: an `Accept` that admits none of them is a 406. A body
 * is read only in the content types an operation lists (415 otherwise), and an empty body, or one that
 * carries no parameter at all (`{}`), is no body whatever type it declares: deployed clients send the
 * token parameters in the query string with an empty JSON body. The hook below applies to every request;
 * routes.ts applies `bodyContentTypes` and `bodyOf` to each operation that takes a body.
 */
import { type OperationId, operationMeta } from '@gateway/generated';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import { unrouted } from './unrouted.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    operationId?: OperationId;
    /** The spec marks the operation `x-refusals-counted`. */
    refusalsCounted?: boolean;
  }
}

const JSON_ONLY = ['application/json'];

/** Whether an `Accept` header admits one of `produced` (absent, or a range covering one with q > 0). */
function acceptable(accept: string | undefined, produced: readonly string[]): boolean {
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

export function negotiation(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    const { accept } = request.headers;
    // The route is looked up only when there is something to negotiate (Fastify builds a new object on every
    // access to `routeOptions`).
    if (accept && accept !== '*/*' && !request.url.startsWith('/docs')) {
      const operationId = request.routeOptions.config.operationId;
      const produced = operationId ? operationMeta[operationId].responseContentTypes : JSON_ONLY;
      if (!acceptable(accept, produced)) {
        // Named, since not every operation serves JSON (metrics are text, events a stream).
        done(new ApiError('not_acceptable', `Only ${produced.join(' or ')} can be served`));
        return;
      }
    }
    const { headers } = request;
    const empty =
      headers['content-length'] === '0' || (headers['content-length'] === undefined && !headers['transfer-encoding']);
    if (empty) {
      if (headers['content-type'] !== undefined) delete headers['content-type'];
    } else if (request.is404) {
      // A body sent where no operation is: the path's answer (404, or 405 with Allow), before any body is read.
      unrouted(request, reply);
      return;
    } else if (headers['content-encoding'] !== undefined && headers['content-encoding'].toLowerCase() !== 'identity') {
      // A compressed body would be read as if it were not (RFC 9110 §8.4.1: 415 for a coding not accepted).
      done(new ApiError('unsupported_media_type', 'A request body must not be encoded (Content-Encoding)'));
      return;
    }
    done();
  });
  // A JSON body of no bytes that did not say so in advance (chunked): no body, as when Content-Length is 0.
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') done(null, {});
    else json(request, body as string, done);
  });
  // The event stream's type is only ever a response; the spec's router (fastify-openapi-glue) warns at every
  // start about a type it sees in the spec without a body parser. A body of that type is refused (415), as
  // any type no operation takes.
  app.addContentTypeParser('text/event-stream', (_request, _payload, done) => {
    done(new ApiError('unsupported_media_type'), undefined);
  });
}

/** A route's check of the body's content type, before validation: only the types the operation lists. */
export function bodyContentTypes(accepted: readonly string[]) {
  return async (request: FastifyRequest) => {
    const contentType = request.headers['content-type'];
    if (contentType === undefined) return;
    const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
    if (!accepted.includes(type)) throw new ApiError('unsupported_media_type');
  };
}

/** The validated body, or undefined when it carries no parameter (`{}`, which the spec admits as no body). */
export function bodyOf(request: FastifyRequest): unknown {
  const { body } = request;
  const empty = typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0;
  return empty ? undefined : body;
}
