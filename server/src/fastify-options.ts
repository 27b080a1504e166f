/**
 * The Fastify server's own options: the logger (never query strings, headers or bodies), limits and
 * timeouts, and answers in the spec's error body for requests that never reach a route (a URL the router
 * cannot read, bytes Node's HTTP parser refuses).
 */

import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyError, FastifyHttpOptions, FastifyReply, FastifyRequest } from 'fastify';
import { LogController } from 'fastify';
import type { Config } from './config.js';
import { errorBody } from './errors.js';
import { logsRequests } from './plugins/observability.js';
import { API_HEADERS } from './plugins/security-headers.js';

/** The body limit the spec states (16 KiB). */
export const BODY_LIMIT = 16 * 1024;

type LogStream = { write(line: string): void };

/**
 * Where log lines go: the given stream; else standard output, as LOG_FORMAT says: readable lines (pino-pretty)
 * for `pretty`, or for `auto` when standard output is a terminal, as pino users expect; JSON lines otherwise,
 * for collectors.
 */
export function logDestination(
  logStream: LogStream | undefined,
  isTTY = process.stdout.isTTY === true,
  format: Config['logFormat'] = 'auto',
) {
  if (logStream) return { stream: logStream };
  if (format === 'pretty' || (format === 'auto' && isTTY)) {
    return { transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l' } } };
  }
  return {};
}

/** A request id a proxy may hand on: short, and only characters that read the same in any log. */
const PROXY_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/**
 * Request ids unique across instances: `<instance>-<count>` (the instance id is random at each start), or
 * the `X-Request-Id` a trusted proxy gives (only with TRUST_PROXY_HOPS: a client's own header is not
 * believed, so that it cannot put another request's id in the logs), when it is well formed.
 */
export function requestIds(
  instanceId: string,
  trustProxy: boolean,
): (request: { headers: Record<string, unknown> }) => string {
  let count = 0;
  return (request) => {
    const given = trustProxy ? request.headers['x-request-id'] : undefined;
    if (typeof given === 'string' && PROXY_REQUEST_ID.test(given)) return given;
    count += 1;
    return `${instanceId}-${count.toString(36)}`;
  };
}

/** A request (its line, headers and body) must have arrived this long after its first byte. */
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * How long an idle connection is kept after an answer: KEEP_ALIVE_TIMEOUT_MS, else Node's 5 s for clients
 * that connect directly, and behind proxies Fastify's 72 s, longer than the 60 s a load balancer (AWS ALB,
 * nginx's upstream `keepalive_timeout`) keeps its own idle connection to a target, so that it is always the
 * one to close it, never the gateway while a request is on its way.
 */
export function keepAliveTimeoutMs(config: Pick<Config, 'keepAliveTimeoutMs' | 'trustProxyHops'>): number {
  if (config.keepAliveTimeoutMs > 0) return config.keepAliveTimeoutMs;
  return config.trustProxyHops > 0 ? 72_000 : 5_000;
}

/** The status line and error body for a request Node's HTTP server refused before it reached Fastify. */
function clientErrorAnswer(code: string | undefined, headersTimeoutMs: number): [string, ReturnType<typeof errorBody>] {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return ['431 Request Header Fields Too Large', errorBody('headers_too_large')];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [
        '408 Request Timeout',
        errorBody(
          'request_timeout',
          `The request did not arrive in time (its headers within ${headersTimeoutMs / 1000} s of its first byte, all of it within ${REQUEST_TIMEOUT_MS / 1000} s).`,
        ),
      ];
    default:
      return ['400 Bad Request', errorBody('invalid_parameter', 'The request is not valid HTTP')];
  }
}

/** The security headers of every API answer, as lines of a head written by hand. */
const API_HEADER_LINES = Object.entries(API_HEADERS)
  .map(([name, value]) => `${name}: ${value}\r\n`)
  .join('');

type Answer = NodeJS.EventEmitter & {
  writableFinished?: boolean;
  headersSent?: boolean;
  req?: { complete?: boolean };
};
const inFlightOn = (socket: Duplex) => (socket as unknown as { _httpMessage?: Answer | null })._httpMessage;

/**
 * Calls `then` once no answer to a request received whole is being written on `socket` (Node's
 * `_httpMessage`: the answer in flight, then each pipelined one queued behind it, in turn), or the
 * connection is gone. An answer to the request still being received (its body cut off, or too slow) is not
 * waited for: that request is the one refused.
 */
function afterAnswersInFlight(socket: Duplex, then: () => void): void {
  const inFlight = inFlightOn(socket);
  if (!inFlight || inFlight.writableFinished || inFlight.req?.complete === false) {
    then();
    return;
  }
  let done = false;
  const next = () => {
    if (done) return;
    done = true;
    afterAnswersInFlight(socket, then);
  };
  // Node's own listener, added when the answer was made, has handed the socket to the next one by then.
  inFlight.once('finish', next);
  inFlight.once('close', next);
}

/** Fastify's own serializer factory (fast-json-stringify), as Fastify builds it when given none. */
const serializers = SerializerSelector();

/**
 * Fastify's serializers, each compiled when an answer first needs it instead of all at start: a route's
 * answer schemas (every status of every operation) took about a third of building the app, and most are
 * never used by an instance's life (the answers of the lists and documents are written as JSON already, not
 * serialized). The first answer of each kind pays its compilation (a millisecond or so); the bytes are the same.
 */
export const lazySerializers: typeof serializers = (externalSchemas, options) => {
  const compile = serializers(externalSchemas, options);
  return (route) => {
    let serialize: ((doc: unknown) => string) | undefined;
    return (doc) => {
      serialize ??= compile(route);
      return serialize(doc);
    };
  };
};

export function fastifyOptions(config: Config, instanceId: string, logStream?: LogStream): FastifyHttpOptions<Server> {
  // The level is the configuration's for the process's life: whether request lines are written is known now.
  const perRequestLogger = logsRequests(config.logLevel);
  const genReqId = requestIds(instanceId, config.trustProxyHops > 0);
  return {
    bodyLimit: BODY_LIMIT,
    schemaController: { compilersFactory: { buildSerializer: lazySerializers } },
    // The spec's own schema keyword (read by the error handler, not a validation rule).
    ajv: { customOptions: { keywords: ['x-unknown-tag-error'] } },
    logger: {
      level: config.logLevel,
      ...logDestination(logStream, undefined, config.logFormat),
      // Never log query strings (deployed clients send passwords there), headers or bodies.
      serializers: {
        req: (req) => ({ id: req.id, method: req.method, path: String(req.url).split('?')[0] }),
        res: (res) => ({ statusCode: res.statusCode }),
      },
    },
    requestIdHeader: false,
    genReqId,
    // Every request line is logged once, by the observability hook.
    logController: new LogController({ disableRequestLogging: true }),
    // A per-request child logger (with the request id) only when request lines are logged at all; error
    // lines name the request id themselves.
    childLoggerFactory: (logger, bindings, options) => (perRequestLogger ? logger.child(bindings, options) : logger),
    // Long enough for every path parameter the spec allows (Fastify's default, 100, is not).
    routerOptions: { maxParamLength: 256 },
    // URLs the router cannot read (bad percent-encoding, a path parameter longer than any the spec allows)
    // are answered in the spec's error body like any other invalid request.
    // They run before any hook: the headers every answer carries are set here too.
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      const message =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? 'A path parameter is longer than any the API accepts'
          : 'The URL is not valid';
      reply
        .code(400)
        .headers(API_HEADERS)
        .header('x-request-id', request.id)
        .send(errorBody('invalid_parameter', message));
    },
    // Requests Node's HTTP parser refuses, and requests that arrive too slowly, never reach Fastify: answer
    // them in the error body too, with the headers of every answer, and close the connection. After the
    // answers to the requests pipelined before it (Node's own rule writes at once, so that the client took
    // the refusal for the answer to an earlier request, whose own answer was lost).
    clientErrorHandler: (error, socket) => {
      const [status, body] = clientErrorAnswer(error.code, config.headersTimeoutMs);
      // An answer to HEAD has no body (its length is still given). Node passes the unparsed bytes.
      const raw: unknown = error.rawPacket;
      const head = Buffer.isBuffer(raw) && raw.toString('latin1', 0, 5) === 'HEAD ';
      const text = JSON.stringify(body);
      afterAnswersInFlight(socket, () => {
        // An answer already begun on this connection (to the request refused): another would corrupt it.
        if (!socket.writable || inFlightOn(socket)?.headersSent) {
          socket.destroy(error);
          return;
        }
        socket.end(
          `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\n` +
            `Content-Length: ${Buffer.byteLength(text)}\r\n${API_HEADER_LINES}` +
            `x-request-id: ${genReqId({ headers: {} })}\r\nConnection: close\r\n\r\n${head ? '' : text}`,
        );
      });
    },
    // Connection timeouts (the caps and the idle timeout of a new connection are plugins/connections.ts):
    // a request's headers within HEADERS_TIMEOUT_MS, the whole request within 30 s (both checked every
    // second), idle between requests KEEP_ALIVE_TIMEOUT_MS, and no more than 60 s without a byte either way
    // while a request is read or answered (an event stream sends a heartbeat every 15 s).
    requestTimeout: REQUEST_TIMEOUT_MS,
    keepAliveTimeout: keepAliveTimeoutMs(config),
    connectionTimeout: 60_000,
    http: {
      requestTimeout: REQUEST_TIMEOUT_MS,
      headersTimeout: config.headersTimeoutMs,
      connectionsCheckingInterval: 1_000,
      // A request without Host is refused by plugins/protocol-rules.ts, in the error body (Node's own 400 has
      // neither body nor headers).
      requireHostHeader: false,
    },
    // Behind TRUST_PROXY_HOPS load balancers, X-Forwarded-For gives the client's address to the limits.
    // With none, no proxy is trusted: the address is the connection's, read without parsing the header at all
    // (a function that trusts no hop gives the same address, host and protocol, at the cost of that parse).
    trustProxy: config.trustProxyHops > 0 ? (_address: string, hop: number) => hop < config.trustProxyHops : false,
  };
}
