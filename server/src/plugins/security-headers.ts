/**
 * Security headers of API answers: nothing the API sends is a document a browser should render, sniff or
 * frame. The API reference page (/docs) brings its own policy.
 */
import type { FastifyInstance } from 'fastify';

export const API_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
};

export function securityHeaders(app: FastifyInstance): void {
  // A callback hook, not an async one: no promise and no microtask per request.
  app.addHook('onRequest', (request, reply, done) => {
    if (!request.url.startsWith('/docs')) reply.headers(API_HEADERS);
    done();
  });
}
