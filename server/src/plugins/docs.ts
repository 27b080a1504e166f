/**
 * The spec at /openapi.json and an interactive API reference at /docs (Swagger UI, served from the
 * package). The reference lists this server first, at the address it was reached by, whatever port it
 * listens on; the spec's own server list follows.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifyRequest } from 'fastify';

type Document = Record<string, unknown> & { servers?: { url: string; description?: string }[] };

/** The document with the server the request reached first in its `servers`. */
function servedFrom(document: Document, request: Pick<FastifyRequest, 'protocol' | 'host'>): Document {
  const here = `${request.protocol}://${request.host}`;
  const others = (document.servers ?? []).filter((server) => server.url !== here);
  return { ...document, servers: [{ url: here, description: 'This server' }, ...others] };
}

export async function docs(app: FastifyInstance, specification: Record<string, unknown>): Promise<void> {
  app.get('/openapi.json', async (_request, reply) => reply.type('application/json').send(specification));
  await app.register(swagger, { mode: 'static', specification: { document: specification as never } });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list', deepLinking: true, tryItOutEnabled: false },
    transformSpecification: (document, request) => servedFrom(document as Document, request),
  });
}
