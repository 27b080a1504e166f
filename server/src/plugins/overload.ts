/**
 * Sheds work instead of dying: while the heap the process holds nears its limit (OVERLOAD_HEAP_PERCENT of the
 * old generation's, where V8 stops the process: `--max-old-space-size`, not `heap_size_limit`; lib/heap.ts)
 * or, when asked, the event loop lags (OVERLOAD_EVENT_LOOP_DELAY_MS), every request is refused at once with
 * 503 (code 11202) and Retry-After, before any of its work is done, until the process has caught up. The
 * operator's endpoints (`/health/live`, `/health/ready`, `/metrics`) are always answered, so that an
 * orchestrator sees the instance and why; `/health/serving`, which load balancers route by, is refused like
 * any request, so that it says the instance sheds. The lag is measured by @fastify/under-pressure, sampled
 * every second; the heap held is the heap in use after the last full collection (`heldHeap`).
 *
 * The same while the answers not yet written to the network pass OVERLOAD_UNSENT_MIB: an answer waits in
 * the process while its client does not read it, and clients that ask and never read would otherwise fill
 * the memory of the process. Each answer is owed by its connection until it is written, discarded, or the
 * connection is gone, and a connection owes at most ANSWERS_OWED_PER_CONNECTION at once (`oweAnswers`).
 */
import type { Socket } from 'node:net';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import underPressure, { type FastifyUnderPressureOptions } from '@fastify/under-pressure';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { errorBody } from '../errors.js';
import { oldGenerationLimit } from '../lib/heap.js';
import type { Metrics } from '../metrics.js';

declare module 'fastify' {
  interface FastifyReply {
    /** The bytes of this answer counted as unsent (plugins/overload.ts): 0 until it is made, and if not counted. */
    unsentAnswerBytes: number;
    /** What this answer's connection owes, when this answer is counted in it (plugins/overload.ts); else null. */
    owedOn: Owed | null;
  }
}

/** Seconds a shed client is asked to wait. */
const RETRY_AFTER_SECONDS = 5;

/**
 * Requests a connection may have in progress or answered and not yet written at once (HTTP/1.1 pipelining);
 * one more and the connection is ended. A client that waits for each answer has one; a client that pipelines
 * and reads has a few; a client that pipelines and never reads made the process hold every answer it asked
 * for (1,000 pipelined `GET /openapi.json` filled a 160 MiB heap).
 */
export const ANSWERS_OWED_PER_CONNECTION = 16;

/** Answered while the instance sheds: what an orchestrator and a scraper read (not `/health/serving`). */
const isOperatorPath = (url: string) =>
  url === '/health/live' ||
  url.startsWith('/health/live?') ||
  url === '/health/ready' ||
  url.startsWith('/health/ready?') ||
  url === '/metrics' ||
  url.startsWith('/metrics?');

type PressureHandler = NonNullable<FastifyUnderPressureOptions['pressureHandler']>;
type Shed = Pick<Metrics, 'requestShed' | 'watchUnsentAnswers'>;

/** Makes `reply` the refusal of an overloaded instance (`reason`: what is over its bound); its body. */
function refusal(reply: FastifyReply, metrics: Pick<Shed, 'requestShed'>, reason: string) {
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

/** What a connection owes its client: answers begun and not yet written or discarded, and their bytes made. */
interface Owed {
  answers: number;
  bytes: number;
  /** Until the connection closes: from then on nothing is owed on it. */
  open: boolean;
  /** Ended for owing too many answers: its remaining requests are refused unread. */
  ended: boolean;
}

/**
 * Counts what each connection owes: each request from when it arrives until its response closes (all
 * written, or closed unwritten), and the bytes of its answer from when it is made; all of a connection's
 * at once when the connection closes (answers queued behind an unread one, or made after their client
 * left, may never see their response close). An answer made for a connection already gone is not counted.
 * A request that would make its connection owe more than ANSWERS_OWED_PER_CONNECTION ends the connection.
 * Requests are refused while the bytes owed pass `limit` (bytes; Infinity: never): at once for any request,
 * and, for a GET whose answer is already made (its work done while others filled the bound), in place of
 * that answer.
 */
function oweAnswers(app: FastifyInstance, limit: number, metrics: Shed): void {
  let unsent = 0;
  metrics.watchUnsentAnswers(() => unsent);
  const owing = new WeakMap<Socket, Owed>();
  const unsentReason = 'unsentAnswerBytes';
  const pipelinedReason = 'answersOwedPerConnection';
  app.decorateReply('unsentAnswerBytes', 0);
  app.decorateReply('owedOn', null);

  const owedBy = (socket: Socket): Owed => {
    const known = owing.get(socket);
    if (known) return known;
    const owed: Owed = { answers: 0, bytes: 0, open: !socket.destroyed, ended: false };
    owing.set(socket, owed);
    // Once per connection: a socket closes once.
    socket.on('close', () => {
      owed.open = false;
      unsent -= owed.bytes;
      owed.bytes = 0;
      owed.answers = 0;
    });
    return owed;
  };

  app.addHook('onRequest', (request, reply, done) => {
    const socket = request.raw.socket;
    const owed = owedBy(socket);
    if (owed.ended || owed.answers >= ANSWERS_OWED_PER_CONNECTION) {
      if (!owed.ended) {
        owed.ended = true;
        socket.destroy();
      }
      // Written nowhere: its connection is ended.
      reply.send(refusal(reply, metrics, pipelinedReason));
      return;
    }
    if (owed.open) {
      owed.answers += 1;
      reply.owedOn = owed;
    }
    if (unsent <= limit || isOperatorPath(request.url)) return done();
    reply.send(refusal(reply, metrics, unsentReason));
  });
  // Paid back when the answer is all written (Fastify runs onResponse on the response's `finish`, or its
  // `error`); an answer never written is paid back with everything its connection owes when the connection
  // closes (in HTTP/1.1 a response ends unwritten only with its connection). No listener and closure of our
  // own on every response.
  app.addHook('onResponse', (_request, reply, done) => {
    const owed = reply.owedOn;
    if (owed?.open) {
      owed.answers -= 1;
      owed.bytes -= reply.unsentAnswerBytes;
      unsent -= reply.unsentAnswerBytes;
    }
    done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return done(null, payload);
    const owed = owing.get(request.raw.socket);
    // Its client left before it was made (a query that finished after the connection closed): nothing
    // waits to be written, and no `close` would ever give its bytes back.
    if (!owed?.open || request.raw.socket.destroyed || reply.raw.destroyed) return done(null, payload);
    let answer: string | Buffer = payload;
    if (unsent > limit && request.method === 'GET' && reply.statusCode < 300 && !isOperatorPath(request.url)) {
      reply.type('application/json; charset=utf-8');
      answer = JSON.stringify(refusal(reply, metrics, unsentReason));
    }
    // An answer sent again (an error in a later hook, answered by the error handler) replaces the first.
    const added = Buffer.byteLength(answer) - reply.unsentAnswerBytes;
    reply.unsentAnswerBytes += added;
    owed.bytes += added;
    unsent += added;
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
function shedOnHeldHeap(app: FastifyInstance, limit: number, metrics: Pick<Shed, 'requestShed'>): void {
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
  // First of the checks: every request is owed until its response closes, refused or not.
  oweAnswers(
    app,
    config.overloadUnsentMib > 0 ? config.overloadUnsentMib * 1024 * 1024 : Number.POSITIVE_INFINITY,
    metrics,
  );
  if (config.overloadEventLoopDelayMs > 0) {
    await app.register(underPressure, {
      maxEventLoopDelay: config.overloadEventLoopDelayMs,
      pressureHandler: refuse(metrics),
    });
  }
  if (config.overloadHeapPercent > 0) {
    shedOnHeldHeap(app, Math.floor((oldGenerationLimit() * config.overloadHeapPercent) / 100), metrics);
  }
}
