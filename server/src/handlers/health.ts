/** Liveness, readiness and metrics: for the people and systems that run the gateway. */
import type { HandlerMap } from '@gateway/generated';
import type { Context } from '../context.js';
import { ApiError } from '../errors.js';

/** How long the serving state waits for the database to answer a ping (milliseconds). */
const PING_WAIT_MS = 1000;

const settleAfter = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(resolve, ms, value).unref());

/** The state of the Redis of the shared limits, when REDIS_URL is set. */
function redisState(context: Context): 'ok' | 'unavailable' | undefined {
  const state = context.sharedLimits?.state();
  return state === undefined ? undefined : state === 'ok' ? 'ok' : 'unavailable';
}

export const healthHandlers: Pick<
  HandlerMap<Context>,
  'getLiveness' | 'getReadiness' | 'getServingState' | 'getMetrics'
> = {
  getLiveness: async () => ({ status: 200, body: { status: 'ok' } }),
  async getReadiness(_request, context) {
    if (!(await context.store.ping())) {
      throw new ApiError('service_unavailable', 'The database does not answer', { headers: { 'retry-after': '5' } });
    }
    const redis = redisState(context);
    const storage = context.database.full ? 'full' : 'ok';
    return { status: 200, body: { status: 'ok', checks: { database: 'ok', storage, ...(redis ? { redis } : {}) } } };
  },
  async getServingState(_request, context) {
    // A load balancer's check must not hang on a database that does not answer (a connect waits up to 5 s).
    const answered = await Promise.race([context.store.ping(), settleAfter(PING_WAIT_MS, false)]);
    const database = answered ? 'ok' : 'unavailable';
    // A catalogue is held once a public read or a deposit term was served; ask for it so that it is.
    await context.catalogue.get().catch(() => {});
    const loaded = context.catalogue.loaded();
    const staleMs = context.catalogue.staleMs();
    if (database === 'unavailable' && !loaded) {
      throw new ApiError('service_unavailable', 'The database does not answer and no catalogue was read yet', {
        headers: { 'retry-after': '5' },
      });
    }
    // Without its Redis the token endpoint's limit is counted per instance: degraded, still serving.
    const redis = redisState(context);
    const storage = context.database.full ? 'full' : 'ok';
    const degraded = database === 'unavailable' || redis === 'unavailable' || storage === 'full';
    return {
      status: 200,
      body: {
        status: degraded ? 'degraded' : 'ok',
        checks: { database, catalogue: loaded ? 'ok' : 'unavailable', storage, ...(redis ? { redis } : {}) },
        ...(staleMs !== null ? { catalogue_age_seconds: Math.floor(staleMs / 1000) } : {}),
      },
    };
  },
  async getMetrics(_request, context) {
    // Served on a port of its own (METRICS_PORT): not here, where a public proxy would show it.
    if (context.config.metricsPort !== 0) throw new ApiError('route_not_found');
    return {
      status: 200,
      body: await context.metrics.render(),
      headers: { 'content-type': context.metrics.contentType },
    };
  },
};
