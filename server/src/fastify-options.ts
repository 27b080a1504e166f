/**
 * The Fastify server's own options: the logger (never query strings, headers or bodies), limits and
 * timeouts, and answers in the spec's error body for requests that never reach a route (a URL the router
 * cannot read, bytes Node's HTTP parser refuses).
 */
import type { FastifyError, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { LogController } from 'fastify';
import type { Config } from './config.js';
import { errorBody } from './errors.js';
import { logsRequests } from './plugins/observability.js';

/** The body limit the spec states (16 KiB). */
export const BODY_LIMIT = 16 * 1024;

type LogStream = { write(line: string): void };

/**
 * Where log lines go: the given stream; else readable lines when standard output is a terminal (pino-pretty,
 * as pino users expect); else JSON lines on standard output, for collectors.
 */
export function logDestination(logStream: LogStream | undefined, isTTY = process.stdout.isTTY === true) {
  if (logStream) return { stream: logStream };
  if (isTTY) return { transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l' } } };
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

export function fastifyOptions(config: Config, instanceId: string, logStream?: LogStream): FastifyServerOptions {
  return {
    bodyLimit: BODY_LIMIT,
    // The spec's own schema keyword (read by the error handler, not a validation rule).
    ajv: { customOptions: { keywords: ['x-unknown-tag-error'] } },
    logger: {
      level: config.logLevel,
      ...logDestination(logStream),
      // Never log query strings (deployed clients send passwords there), headers or bodies.
      serializers: {
        req: (req) => ({ id: req.id, method: req.method, path: String(req.url).split('?')[0] }),
        res: (res) => ({ statusCode: res.statusCode }),
      },
    },
    requestIdHeader: false,
    genReqId: requestIds(instanceId, config.trustProxyHops > 0),
    // Every request line is logged once, by the observability hook.
    logController: new LogController({ disableRequestLogging: true }),
    // A per-request child logger (with the request id) only when request lines are logged at all; error
    // lines name the request id themselves.
    childLoggerFactory: (logger, bindings, options) =>
      logsRequests(logger.level) ? logger.child(bindings, options) : logger,
    // Long enough for every path parameter the spec allows (Fastify's default, 100, is not).
    routerOptions: { maxParamLength: 256 },
    requestTimeout: 30_000,
    // URLs the router cannot read (bad percent-encoding, a path parameter longer than any the spec allows)
    // are answered in the spec's error body like any other invalid request.
    frameworkErrors: (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
      const message =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? 'A path parameter is longer than any the API accepts'
          : 'The URL is not valid';
      reply.code(400).send(errorBody('invalid_parameter', message));
    },
    // Requests Node's HTTP parser refuses never reach Fastify: answer them in the error body too.
    clientErrorHandler: (error, socket) => {
      if (!socket.writable) {
        socket.destroy(error);
        return;
      }
      const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
      // An answer to HEAD has no body (its length is still given). Node passes the unparsed bytes.
      const raw: unknown = error.rawPacket;
      const head = Buffer.isBuffer(raw) && raw.toString('latin1', 0, 5) === 'HEAD ';
      const body = JSON.stringify(
        tooLarge ? errorBody('headers_too_large') : errorBody('invalid_parameter', 'The request is not valid HTTP'),
      );
      socket.end(
        `HTTP/1.1 ${tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\n` +
          `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${head ? '' : body}`,
      );
    },
    connectionTimeout: 60_000,
    // Behind TRUST_PROXY_HOPS load balancers, X-Forwarded-For gives the client's address to the limits.
    trustProxy: (_address: string, hop: number) => hop < config.trustProxyHops,
  };
}
