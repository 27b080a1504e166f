/**
 * Sheds work instead of dying: while the heap in use nears its limit (OVERLOAD_HEAP_PERCENT of V8's) or,
 * when asked, the event loop lags (OVERLOAD_EVENT_LOOP_DELAY_MS), every request is refused at once with 503
 * (code 11202) and Retry-After, before any of its work is done, until the process has caught up. The
 * operator's endpoints (`/health/*`, `/metrics`) are always answered, so that an orchestrator sees the
 * instance and why.
 * Measured by @fastify/under-pressure, sampled every second.
 */
import { getHeapStatistics } from 'node:v8';
import underPressure, { type FastifyUnderPressureOptions } from '@fastify/under-pressure';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { errorBody } from '../errors.js';
import type { Metrics } from '../metrics.js';

/** Seconds a shed client is asked to wait. */
const RETRY_AFTER_SECONDS = 5;

const isOperatorPath = (url: string) => url.startsWith('/health/') || url === '/metrics' || url.startsWith('/metrics?');

type PressureHandler = NonNullable<FastifyUnderPressureOptions['pressureHandler']>;

/**
 * The answer to a request while overloaded: the operator's endpoints go on (nothing returned), any other is
 * refused. The plugin sends what a pressure handler returns (its README: any value but a promise or nullish);
 * its types say void, hence the cast.
 */
function refuse(metrics: Pick<Metrics, 'requestShed'>): PressureHandler {
  const handler = (request: FastifyRequest, reply: FastifyReply, type: string) => {
    if (isOperatorPath(request.url)) return undefined;
    metrics.requestShed(type);
    reply.code(503).header('retry-after', String(RETRY_AFTER_SECONDS));
    return errorBody('overloaded');
  };
  return handler as unknown as PressureHandler;
}

export async function overload(
  app: FastifyInstance,
  config: Pick<Config, 'overloadEventLoopDelayMs' | 'overloadHeapPercent'>,
  metrics: Pick<Metrics, 'requestShed'>,
): Promise<void> {
  const heapLimit = getHeapStatistics().heap_size_limit;
  await app.register(underPressure, {
    maxEventLoopDelay: config.overloadEventLoopDelayMs,
    maxHeapUsedBytes: Math.floor((heapLimit * config.overloadHeapPercent) / 100),
    pressureHandler: refuse(metrics),
  });
}
