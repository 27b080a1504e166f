/**
 * CORS for the browser origins of `CORS_ORIGINS` (none by default: no CORS headers at all). In demo mode
 * (`serve --demo`, `npm start`) the local development origins are accepted too, so that a frontend's dev
 * server on another port of the same machine can call the API.
 */
import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import { unrouted } from './unrouted.js';

/**
 * A dev server on this machine, any valid port, http or https: `http://localhost:5173`,
 * `https://127.0.0.1:3001`, `http://[::1]:8080`. Not `http://localhost:99999` (no such port).
 */
const LOCAL_ORIGIN = /^https?:\/\/(?:localhost|127\.0\.0\.1|\[::1\])(?::([1-9]\d{0,4}))?$/;

export function isLocalDevelopmentOrigin(origin: string): boolean {
  const match = LOCAL_ORIGIN.exec(origin);
  return match !== null && (match[1] === undefined || Number(match[1]) <= 65_535);
}

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
    origin: origins.includes('*')
      ? '*'
      : (origin: string | undefined, done: (error: Error | null, allow: boolean) => void) =>
          done(null, origin !== undefined && (origins.includes(origin) || (local && isLocalDevelopmentOrigin(origin)))),
    methods: ['GET', 'HEAD', 'POST'],
    // `Prefer` is the mock's (a status or example on demand): accepted and ignored here, so that one app
    // configuration works against both.
    allowedHeaders: ['Authorization', 'Content-Type', 'Accept', 'Last-Event-ID', 'Prefer'],
    exposedHeaders: ['Catalogue-Age', 'Deprecation', 'Link', 'Retry-After', 'WWW-Authenticate', 'X-Request-Id'],
    maxAge: 600,
  });
}
