/**
 * Rate limits, applied where a route asks for one (the operations the spec marks `x-rate-limited`); over
 * the limit is a 429 in the error body. A client is counted by its address as the connection caps count it
 * (`addressKey`): an IPv6 address by its /64, which one host or one home is given whole, so that the
 * addresses of one network share one count (200 addresses of one /64 once had 200 answers each). With
 * REDIS_URL every instance counts against the same limits; without it, or while that Redis is lost, each
 * counts alone (with N instances, at most N times the limit).
 */
import { createRequire } from 'node:module';
import rateLimit, { type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { WindowCounter } from '../domain/withdrawal-limits.js';
import { addressKey } from '../lib/connection-caps.js';
import type { SharedLimits } from '../shared-limits.js';

/** A count of requests by key in a window: what @fastify/rate-limit's stores do (its types omit two arguments). */
interface Counter {
  incr(
    key: string,
    done: (error: Error | null, result: { current: number; ttl: number } | null) => void,
    timeWindow: number,
    max: number,
  ): void;
  child(routeOptions: unknown): Counter;
}
interface StoreOptions {
  continueExceeding: boolean;
  exponentialBackoff: boolean;
}

// The plugin's own two stores (not exported by its index): the same counting rules in Redis and in memory.
const require = createRequire(import.meta.url);
const RedisStore = require('@fastify/rate-limit/store/RedisStore.js') as new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  redis: Redis,
  nameSpace: string,
) => Counter;
const LocalStore = require('@fastify/rate-limit/store/LocalStore.js') as new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
) => Counter;

/**
 * Counts in Redis while it answers, in memory while it is lost. Every request is counted in memory too, so
 * that an instance that loses Redis goes on from its own count in the window rather than from zero. While
 * lost, the count in memory answers at once and Redis is tried in the background (a request's count is
 * never lost to Redis when a connection is up); the first command that answers brings Redis back.
 */
class FallbackCounter implements Counter {
  constructor(
    private readonly limits: SharedLimits,
    private readonly shared: Counter,
    private readonly local: Counter,
  ) {}

  incr(key: string, done: Parameters<Counter['incr']>[1], timeWindow: number, max: number): void {
    this.local.incr(
      key,
      (_error, localCount) => {
        const waiting = this.limits.state() === 'ok';
        this.shared.incr(
          key,
          (error, sharedCount) => {
            if (error) this.limits.failed(error);
            else this.limits.answered();
            if (waiting) done(null, error ? copy(localCount) : sharedCount);
          },
          timeWindow,
          max,
        );
        if (!waiting) done(null, copy(localCount));
      },
      timeWindow,
      max,
    );
  }

  child(routeOptions: unknown): Counter {
    return new FallbackCounter(this.limits, this.shared.child(routeOptions), this.local.child(routeOptions));
  }
}

// The count in memory is the store's own record, which later requests change.
const copy = (count: { current: number; ttl: number } | null) => count && { current: count.current, ttl: count.ttl };

function fallbackStore(limits: SharedLimits) {
  return class extends FallbackCounter {
    constructor(options: StoreOptions) {
      const { continueExceeding, exponentialBackoff } = options;
      super(
        limits,
        new RedisStore(continueExceeding, exponentialBackoff, limits.redis, 'gateway-rate-limit-'),
        new LocalStore(continueExceeding, exponentialBackoff),
      );
    }
  };
}

/**
 * A counter of hits by key in fixed windows for limits the domain applies itself (where only some requests
 * count, such as the new withdrawal addresses): the same counting as the routes' limits, in Redis under
 * `namespace` while it answers, in memory otherwise.
 */
export function windowCounter(sharedLimits: SharedLimits | null, namespace: string): WindowCounter {
  const local = new LocalStore(false, false);
  const counter = sharedLimits
    ? new FallbackCounter(sharedLimits, new RedisStore(false, false, sharedLimits.redis, namespace), local)
    : local;
  return {
    hit: (key, windowMs, max) =>
      new Promise((resolve, reject) =>
        counter.incr(
          key,
          (error, result) =>
            result ? resolve({ count: result.current, ttlMs: result.ttl }) : reject(error ?? new Error('no count')),
          windowMs,
          max,
        ),
      ),
  };
}

export async function rateLimits(app: FastifyInstance, sharedLimits: SharedLimits | null): Promise<void> {
  // The first answer is known before the first request: shared, or announced as lost.
  if (sharedLimits) await sharedLimits.started;
  await app.register(rateLimit, {
    global: false,
    keyGenerator: (request) => addressKey(request.ip),
    ...(sharedLimits ? { store: fallbackStore(sharedLimits) as unknown as FastifyRateLimitStoreCtor } : {}),
    errorResponseBuilder: (_request, context) =>
      Object.assign(new Error('rate limited'), { statusCode: 429, ttl: context.ttl }),
  });
}
