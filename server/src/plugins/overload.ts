/**
 * Sheds work instead of dying: while the heap the process holds nears its limit (OVERLOAD_HEAP_PERCENT of the
 * old generation's, where V8 stops the process: `--max-old-space-size`, not `heap_size_limit`; lib/heap.ts)
 * or, when asked, the event loop lags (OVERLOAD_EVENT_LOOP_DELAY_MS), every request is refused at once with
 * 503 (code 11202) and Retry-After, before any of its work is done, until the process has caught up. The
 * operator's endpoints (`/health/*`, `/metrics`) are always answered, so that an orchestrator sees the
 * instance and why. The lag is measured by @fastify/under-pressure, sampled every second; the heap held is
 * the heap in use after the last full collection (`heldHeap`).
 *
 * The same while the answers not yet written to the network pass OVERLOAD_UNSENT_MIB: an answer waits in
 * the process (outside the heap, which the heap check does not see) while its client does not read it, and
 * clients that ask and never read would otherwise fill the memory of the process.
 */
import { constants, PerformanceObserver } from 'node:perf_hooks';
import underPressure, { type FastifyUnderPressureOptions } from '@fastify/under-pressure';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { errorBody } from '../errors.js';
import { oldGenerationLimit } from '../lib/heap.js';
import type { Metrics } from '../metrics.js';

/** Seconds a shed client is asked to wait. */
const RETRY_AFTER_SECONDS = 5;

const isOperatorPath = (url: string) => url.startsWith('/health/') || url === '/metrics' || url.startsWith('/metrics?');

type PressureHandler = NonNullable<FastifyUnderPressureOptions['pressureHandler']>;
type Shed = Pick<Metrics, 'requestShed'>;

/** Makes `reply` the refusal of an overloaded instance (`reason`: what is over its bound); its body. */
function refusal(reply: FastifyReply, metrics: Shed, reason: string) {
  metrics.requestShed(reason);
  reply.code(503).header('retry-after', String(RETRY_AFTER_SECONDS));
  return errorBody('overloaded');
}

/**
 * The answer to a request while overloaded: the operator's endpoints go on (nothing returned), any other is
 * refused. The plugin sends what a pressure handler returns (its README: any value but a promise or nullish);
 * its types say void, hence the cast.
 */
function refuse(metrics: Shed): PressureHandler {
  const handler = (request: FastifyRequest, reply: FastifyReply, type: string) =>
    isOperatorPath(request.url) ? undefined : refusal(reply, metrics, type);
  return handler as unknown as PressureHandler;
}

/**
 * Counts the bytes of each answer from when it is handed to its connection until it is all written to the
 * network (its response finishes, or closes unwritten), and refuses requests while they pass `limit`: at once for
 * any request, and, for a GET whose answer is already made (its work done while others filled the bound),
 * in place of that answer.
 */
function shedUnsentAnswers(app: FastifyInstance, limit: number, metrics: Shed): void {
  let unsent = 0;
  const reason = 'unsentAnswerBytes';
  app.addHook('onRequest', (request, reply, done) => {
    if (unsent <= limit || isOperatorPath(request.url)) return done();
    reply.send(refusal(reply, metrics, reason));
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return done(null, payload);
    let answer: string | Buffer = payload;
    if (unsent > limit && request.method === 'GET' && reply.statusCode < 300 && !isOperatorPath(request.url)) {
      reply.type('application/json; charset=utf-8');
      answer = JSON.stringify(refusal(reply, metrics, reason));
    }
    const bytes = Buffer.byteLength(answer);
    unsent += bytes;
    // A response emits `close` exactly once: just after `finish` when it is all written, or when its
    // connection closes first. One plain listener (not `once` of both, two wrappers per answer).
    reply.raw.on('close', () => {
      unsent -= bytes;
    });
    done(null, answer);
  });
}

/**
 * The heap the process holds: the heap in use when sampled at start and just after each full (mark-compact)
 * collection, when it is what survived. The heap in use at any other moment also counts the garbage of
 * every request since the last full collection, which V8 lets pile up close to the limit before collecting it,
 * so a bound on it refuses work in spells while far less is held (the bench's 5,000 event streams, about 77%
 * of their heap held, were all refused that way). Full collections come more often as the heap held nears the
 * limit, so the figure is fresh when it matters.
 */
function heldHeap(app: FastifyInstance): () => number {
  let held = process.memoryUsage().heapUsed;
  const observer = new PerformanceObserver((list) => {
    const full = list
      .getEntries()
      .some((entry) => (entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR);
    if (full) held = process.memoryUsage().heapUsed;
  });
  observer.observe({ entryTypes: ['gc'] });
  app.addHook('onClose', async () => observer.disconnect());
  return () => held;
}

/** Refuses requests while the heap held passes `limit` bytes (the operator's endpoints go on). */
function shedOnHeldHeap(app: FastifyInstance, limit: number, metrics: Shed): void {
  const held = heldHeap(app);
  app.addHook('onRequest', (request, reply, done) => {
    if (held() <= limit || isOperatorPath(request.url)) return done();
    reply.send(refusal(reply, metrics, 'heapUsedBytes'));
  });
}

export async function overload(
  app: FastifyInstance,
  config: Pick<Config, 'overloadEventLoopDelayMs' | 'overloadHeapPercent' | 'overloadUnsentMib'>,
  metrics: Shed,
): Promise<void> {
  if (config.overloadEventLoopDelayMs > 0) {
    await app.register(underPressure, {
      maxEventLoopDelay: config.overloadEventLoopDelayMs,
      pressureHandler: refuse(metrics),
    });
  }
  if (config.overloadHeapPercent > 0) {
    shedOnHeldHeap(app, Math.floor((oldGenerationLimit() * config.overloadHeapPercent) / 100), metrics);
  }
  if (config.overloadUnsentMib > 0) shedUnsentAnswers(app, config.overloadUnsentMib * 1024 * 1024, metrics);
}
