/**
 * CORS for the browser origins of `CORS_ORIGINS` (none by default: no CORS headers at all). In demo mode
 * (`serve --demo`, `npm start`) the local development origins are accepted too, so that a frontend's dev
 * server on another port of the same machine can call the API.
 */
import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import { unrouted } from '../error-handler.js';

/** A dev server on this machine, any port: `http://localhost:5173`, `http://127.0.0.1:3001`. */
const LOCAL_DEVELOPMENT_ORIGIN = /^http:\/\/(localhost|127\.0\.0\.1)(:\d{1,5})?$/;

export async function corsFor(
  app: FastifyInstance,
  origins: readonly string[],
  options: { localDevelopment?: boolean } = {},
): Promise<void> {
  const local = options.localDevelopment === true;
  if (origins.length === 0 && !local) return;
  // An OPTIONS request that is not a CORS preflight (no Origin, or no Access-Control-Request-Method) is
  // not the CORS plugin's to refuse (in plain text): it gets the API's answer to an unrouted method.
  app.addHook('onRequest', async (request, reply) => {
    if (request.method !== 'OPTIONS') return;
    if (request.headers.origin && request.headers['access-control-request-method']) return;
    return unrouted(request, reply);
  });
  await app.register(cors, {
    origin: origins.includes('*') ? '*' : [...origins, ...(local ? [LOCAL_DEVELOPMENT_ORIGIN] : [])],
    methods: ['GET', 'HEAD', 'POST'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Accept', 'Last-Event-ID'],
    exposedHeaders: ['Deprecation', 'Link', 'Retry-After', 'WWW-Authenticate'],
    maxAge: 600,
  });
}
