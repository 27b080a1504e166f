/** Liveness, readiness and metrics: for the people and systems that run the gateway. */
import type { HandlerMap } from '@gateway/generated';
import type { Context } from '../context.js';
import { ApiError } from '../errors.js';

export const healthHandlers: Pick<HandlerMap<Context>, 'getLiveness' | 'getReadiness' | 'getMetrics'> = {
  getLiveness: async () => ({ status: 200, body: { status: 'ok' } }),
  async getReadiness(_request, context) {
    if (!(await context.store.ping())) {
      throw new ApiError('service_unavailable', 'The database does not answer', { headers: { 'retry-after': '5' } });
    }
    return { status: 200, body: { status: 'ok', checks: { database: 'ok' } } };
  },
  async getMetrics(_request, context) {
    return {
      status: 200,
      body: await context.metrics.render(),
      headers: { 'content-type': context.metrics.contentType },
    };
  },
};
