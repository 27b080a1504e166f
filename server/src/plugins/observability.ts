/**
 * One structured log line per request (request id, operationId, status, duration; never query strings,
 * headers or bodies), request metrics, and security headers on API answers.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Metrics } from '../metrics.js';

/** A bounded label for a request: its operationId, or the route it matched, or `unmatched`. */
export function operationOf(request: FastifyRequest): string {
  return request.routeOptions.config.operationId ?? request.routeOptions.url ?? 'unmatched';
}

const API_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
};

export function observability(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onRequest', async (request, reply) => {
    // The API reference page brings its own policy; everything else is data, never a document.
    if (!request.url.startsWith('/docs')) reply.headers(API_HEADERS);
  });
  app.addHook('onResponse', async (request, reply) => {
    const operation = operationOf(request);
    const seconds = reply.elapsedTime / 1000;
    metrics.observeRequest(operation, reply.statusCode, seconds);
    if (operation === 'createToken' && reply.statusCode === 200) {
      const params = (request.body && typeof request.body === 'object' ? request.body : request.query) as {
        grant_type?: string;
      };
      metrics.tokenGranted(params.grant_type === 'refresh_token' ? 'refresh_token' : 'password');
    }
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
  });
}
