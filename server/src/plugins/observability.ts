/**
 * One structured log line per request (request id, operation, status, duration; never query strings,
 * headers or bodies) and the request metrics.
 */
import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../metrics.js';

/** The label of a request that matched no route. */
export const UNMATCHED = 'unmatched';

/** Whether a logger at this level writes the request lines (info). */
export const logsRequests = (level: string) => level === 'trace' || level === 'debug' || level === 'info';

export function observability(app: FastifyInstance, metrics: Metrics): void {
  // A callback hook, not an async one: no promise and no microtask per request.
  app.addHook('onResponse', (request, reply, done) => {
    // A bounded label: the operationId, or the route matched, or `unmatched` (never a raw path). Read once:
    // Fastify builds a new object on every access to `routeOptions`.
    const route = request.routeOptions;
    const operation = route.config.operationId ?? route.url ?? UNMATCHED;
    metrics.observeRequest(operation, reply.statusCode, reply.elapsedTime / 1000);
    if (logsRequests(request.log.level)) {
      // The request id comes with the request's child logger.
      request.log.info(
        {
          operation,
          method: request.method,
          path: request.url.split('?')[0],
          status: reply.statusCode,
          durationMs: Math.round(reply.elapsedTime * 100) / 100,
        },
        'request',
      );
    }
    done();
  });
}
