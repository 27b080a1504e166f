/**
 * The spec at /openapi.json and an interactive API reference at /docs (Swagger UI, served from the
 * package). The reference lists this server first, by a relative URL (the address the page was loaded from,
 * resolved by the browser: never the request's `Host`, which a client chooses); the spec's own server list
 * follows.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

type Document = Record<string, unknown> & { servers?: { url: string; description?: string }[] };

/** The document with this server (relative: wherever the page came from) first in its `servers`. */
export function servedFromHere(document: Document): Document {
  return { ...document, servers: [{ url: '/', description: 'This server' }, ...(document.servers ?? [])] };
}

/**
 * The request headers the reference's files are served without: a part of a file (`Range`, `If-Range`) and
 * the preconditions no answer of this server evaluates (`If-Match`, `If-Unmodified-Since`; the API's
 * operations ignore them too). A file comes whole, or not modified (`If-None-Match`, `If-Modified-Since`):
 * the static files' library would otherwise answer 416 and 412, statuses the spec's error catalogue has no
 * code for.
 */
const IGNORED = ['range', 'if-range', 'if-match', 'if-unmodified-since'] as const;

export async function docs(app: FastifyInstance, specification: Record<string, unknown>): Promise<void> {
  app.get('/openapi.json', async (_request, reply) => reply.type('application/json').send(specification));
  await app.register(swagger, { mode: 'static', specification: { document: specification as never } });
  const reference = servedFromHere(specification as Document);
  // In a scope of its own, so that the hook runs for the reference's routes only.
  await app.register(async (scope) => {
    scope.addHook('onRequest', (request, _reply, done) => {
      for (const name of IGNORED) delete request.raw.headers[name];
      done();
    });
    await scope.register(swaggerUi, {
      routePrefix: '/docs',
      // No call to the public validator (its badge is an image from another site, which the page's policy refuses).
      uiConfig: { docExpansion: 'list', deepLinking: true, tryItOutEnabled: false, validatorUrl: null },
      transformSpecification: () => reference,
    });
  });
}
