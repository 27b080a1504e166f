/** The spec at /openapi.json and an interactive API reference at /docs (Swagger UI, served from the package). */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

export async function docs(app: FastifyInstance, specification: Record<string, unknown>): Promise<void> {
  app.get('/openapi.json', async (_request, reply) => reply.type('application/json').send(specification));
  await app.register(swagger, { mode: 'static', specification: { document: specification as never } });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list', deepLinking: true, tryItOutEnabled: false },
  });
}
