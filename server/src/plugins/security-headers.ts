/**
 * Security headers on every answer. Nothing the API sends is a document a browser should render, sniff or
 * frame. The API reference (/docs) is a page: its policy lets it load its own scripts, styles, images and
 * spec from this server, and nothing from anywhere else (Swagger UI's page has no inline script).
 */
import type { FastifyInstance } from 'fastify';

const COMMON = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

export const API_HEADERS = {
  ...COMMON,
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
};

/**
 * The one inline style element Swagger UI's bundle inserts, allowed by its hash (not 'unsafe-inline'). Another
 * version of @fastify/swagger-ui may bring another: the browser test of /docs (test/browser/docs.test.ts) then
 * fails with Chromium's report naming the hash to put here.
 */
const SWAGGER_UI_INLINE_STYLE = "'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='";

export const DOCS_HEADERS = {
  ...COMMON,
  'content-security-policy':
    `default-src 'none'; script-src 'self'; style-src 'self' ${SWAGGER_UI_INLINE_STYLE}; img-src 'self' data:; ` +
    "font-src 'self' data:; " +
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
};

/** Whether a request URL is the reference page or one of its files. */
const isDocs = (url: string) => url === '/docs' || url.startsWith('/docs/') || url.startsWith('/docs?');

export function securityHeaders(app: FastifyInstance): void {
  // A callback hook, not an async one: no promise and no microtask per request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(isDocs(request.url) ? DOCS_HEADERS : API_HEADERS);
    done();
  });
}
