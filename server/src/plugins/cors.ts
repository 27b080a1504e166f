/** CORS for the browser origins of `CORS_ORIGINS` (none by default: no CORS headers at all). */
import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

export async function corsFor(app: FastifyInstance, origins: readonly string[]): Promise<void> {
  if (origins.length === 0) return;
  await app.register(cors, {
    origin: origins.includes('*') ? '*' : [...origins],
    methods: ['GET', 'HEAD', 'POST'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Accept'],
    exposedHeaders: ['Deprecation', 'Link', 'Retry-After', 'WWW-Authenticate'],
    maxAge: 600,
  });
}
