/**
 * One structured log line per request (request id, operation, status, duration, the client's address as
 * TRUST_PROXY_HOPS resolves it, its user agent, the account when signed in; never query strings, other
 * headers or bodies), the request id returned in `X-Request-Id` on every answer, and the request metrics.
 */
import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../metrics.js';

/** The label of a request that matched no route. */
export const UNMATCHED = 'unmatched';

/** Whether a logger at this level writes the request lines (info). */
export const logsRequests = (level: string) => level === 'trace' || level === 'debug' || level === 'info';

/** The longest user agent a log line carries. */
const USER_AGENT_MAX = 200;

/** Every answer carries its request id, the one to quote to an operator (registered first of all hooks). */
export function returnRequestIds(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
}

export function observability(app: FastifyInstance, metrics: Metrics): void {
  // The level is set at start (a logger's level getter, read on every request, cost more than the line's test).
  const logging = logsRequests(app.log.level);
  // A callback hook, not an async one: no promise and no microtask per request.
  app.addHook('onResponse', (request, reply, done) => {
    // A bounded label: the operationId, or the route matched, or `unmatched` (never a raw path). Read once:
    // Fastify builds a new object on every access to `routeOptions`.
    const route = request.routeOptions;
    const operation = route.config.operationId ?? route.url ?? UNMATCHED;
    metrics.observeRequest(operation, reply.statusCode, reply.elapsedTime / 1000);
    if (logging) {
      // The request id comes with the request's child logger.
      request.log.info(
        {
          operation,
          method: request.method,
          path: request.url.split('?')[0],
          status: reply.statusCode,
          durationMs: Math.round(reply.elapsedTime * 100) / 100,
          client: request.ip,
          userAgent: request.headers['user-agent']?.slice(0, USER_AGENT_MAX),
          account: request.caller?.account,
        },
        'request',
      );
    }
    done();
  });
  // A client that closes its connection before its answer (a slow body given up, a page left): one line at
  // info, without a stack, whatever their number (a slow-body attack writes thousands). Only when request
  // lines are logged at all (the level is set at start): with the hook, Fastify listens for every request's
  // `close`, a listener and a closure per request (bench/hook-costs.mjs).
  if (!logging) return;
  app.addHook('onRequestAbort', (request, done) => {
    const route = request.routeOptions;
    const operation = route.config.operationId ?? route.url ?? UNMATCHED;
    const path = request.url.split('?')[0];
    request.log.info({ operation, method: request.method, path, client: request.ip }, 'request aborted by the client');
    done();
  });
}
