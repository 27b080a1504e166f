/**
 * The drivers of services an instance may not use, loaded at their first use: pg (a PostgreSQL DATABASE_URL,
 * the housekeeper's lock) and ioredis (REDIS_URL). The embedded default uses neither, and loading them at start
 * cost every command and every `serve` tens of milliseconds of CPU. Both are CommonJS packages: `require` gives
 * the module instance an `import` of them gives (tracing-drivers.ts wraps its classes, and they are the same).
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** pg, loaded when first asked for. */
export const postgresDriver = (): typeof import('pg') => require('pg');

/** ioredis, loaded when first asked for. */
export const redisDriver = (): typeof import('ioredis') => require('ioredis');
