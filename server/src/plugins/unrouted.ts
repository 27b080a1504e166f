/**
 * The answer to a request that no route takes: 405 with `Allow` when another method of the path exists (by
 * the spec's operations), else 404, both in the spec's error body.
 */
import { operationMeta } from '@gateway/generated';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorBody } from '../errors.js';

const templateMatchers = Object.values(operationMeta).map((meta) => ({
  method: meta.method,
  pattern: new RegExp(`^${meta.path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
}));

/** The methods a path supports, for 405 (empty when no operation has the path). */
function methodsAt(pathname: string): string[] {
  const methods = templateMatchers.filter((m) => m.pattern.test(pathname)).map((m) => m.method);
  return methods.includes('GET') ? [...methods, 'HEAD'] : methods;
}

/** The answer to a request no route takes: 405 with `Allow` when the path has other methods, else 404. */
export function unrouted(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const pathname = request.url.split(/[?#]/)[0] ?? '';
  const methods = methodsAt(pathname);
  if (methods.length > 0) {
    return reply
      .code(405)
      .header('allow', methods.join(', '))
      .send(errorBody('method_not_allowed', `Method ${request.method} is not allowed here`));
  }
  return reply.code(404).send(errorBody('route_not_found'));
}
