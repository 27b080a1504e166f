/**
 * Rate limits, applied where a route asks for one (the operations the spec marks `x-rate-limited`); over
 * the limit is a 429 in the error body. With REDIS_URL every instance counts against the same limits;
 * without it, each counts alone.
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';

export async function rateLimits(app: FastifyInstance, redisUrl: string): Promise<void> {
  const redis = redisUrl
    ? new Redis(redisUrl, { maxRetriesPerRequest: 1, connectTimeout: 2000, lazyConnect: false })
    : null;
  if (redis) {
    redis.on('error', (error) => app.log.warn({ err: error }, 'redis'));
    app.addHook('onClose', async () => {
      await redis.quit().catch(() => redis.disconnect());
    });
  }
  await app.register(rateLimit, {
    global: false,
    ...(redis ? { redis, nameSpace: 'gateway-rate-limit-', skipOnError: true } : {}),
    errorResponseBuilder: (_request, context) =>
      Object.assign(new Error('rate limited'), { statusCode: 429, ttl: context.ttl }),
  });
}
