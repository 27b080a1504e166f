/**
 * One structured log line per request (request id, operationId, status, duration; never query strings,
 * headers or bodies), request metrics, and the security headers of API answers (set by the app's
 * onRequest hook, with the other checks every request gets).
 */
import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../metrics.js';

/** The label of a request that matched no route (set by the app's onRequest hook otherwise). */
export const UNMATCHED = 'unmatched';

export const API_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
};

/** Whether a logger at this level writes the request lines (info). */
export const logsRequests = (level: string) => level === 'trace' || level === 'debug' || level === 'info';

export function observability(app: FastifyInstance, metrics: Metrics): void {
  // A callback hook, not an async one: no promise and no microtask per request.
  app.addHook('onResponse', (request, reply, done) => {
    // A bounded label: the operationId, or the route matched, or `unmatched` (the app's onRequest hook).
    const operation = request.operation;
    const seconds = reply.elapsedTime / 1000;
    metrics.observeRequest(operation, reply.statusCode, seconds);
    if (operation === 'createToken' && reply.statusCode === 200) {
      const params = (request.body && typeof request.body === 'object' ? request.body : request.query) as {
        grant_type?: string;
      };
      metrics.tokenGranted(params.grant_type === 'refresh_token' ? 'refresh_token' : 'password');
    }
    if (logsRequests(request.log.level)) {
      request.log.info(
        {
          reqId: request.id,
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
