/**
 * The route of each operation, as fastify-openapi-glue builds it from the spec, completed from the
 * operation's generated metadata: the handler of the handler map, the body's content types, `no-store`,
 * the rate limit, the deprecation headers, the count of deprecated parameters sent, the catalogue's age
 * during a database outage. Nothing here names
 * an operation: what is particular to one is declared in the spec and reaches this file through
 * `operationMeta`.
 */

import { type HandlerMap, type OperationId, type OperationMeta, operationMeta } from '@gateway/generated';
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { Context } from './context.js';
import { addressKey } from './lib/connection-caps.js';
import { JsonText } from './lib/json-text.js';
import { ownCopy } from './lib/own-copy.js';
import { exactValidators } from './plugins/exact-bodies.js';
import { decimalIntegers } from './plugins/integer-parameters.js';
import { bodyContentTypes, bodyOf } from './plugins/negotiation.js';
import { ownSecurityCheck, type SecurityCheck, type SecurityRequirement } from './route-security.js';

type AnyHandler = (
  request: { params: unknown; query: unknown; body: unknown; headers: FastifyRequest['headers'] },
  context: Context,
) => Promise<{ status: number; body: unknown; headers?: Readonly<Record<string, string>> }>;

/** `Deprecation` (RFC 9745) and `Link` to the successor, with the platform the reply was served on. */
function deprecationHeaders(
  meta: OperationMeta,
  params: Record<string, string>,
  body: unknown,
): Record<string, string> {
  const headers: Record<string, string> = {};
  if (meta.deprecatedAt) headers.deprecation = `@${Math.floor(Date.parse(meta.deprecatedAt) / 1000)}`;
  if (meta.successor) {
    const reply = body as { platform_id?: string; currency?: { platform_id?: string } };
    const values: Record<string, string | undefined> = {
      ...params,
      platform: reply.platform_id ?? reply.currency?.platform_id,
    };
    const successor = operationMeta[meta.successor].path.replace(/\{([^}]+)\}/g, (_, name: string) =>
      encodeURIComponent(values[name] ?? ''),
    );
    headers.link = `<${successor}>; rel="successor-version"`;
  }
  return headers;
}

/** A route's checks before validation: the body's content type, the query's integers as written. */
function preValidationOf(meta: OperationMeta): Pick<RouteOptions, 'preValidation'> {
  const hooks = [
    meta.bodyContentTypes.length > 0 ? bodyContentTypes(meta.bodyContentTypes) : null,
    meta.integerQueryParameters.length > 0 ? decimalIntegers(meta.integerQueryParameters) : null,
  ].filter((hook) => hook !== null);
  return hooks.length > 0 ? { preValidation: hooks as NonNullable<RouteOptions['preValidation']> } : {};
}

/** A body sent as it is written (a text/event-stream): a readable stream the response pipes. */
interface StreamedBody {
  readonly streamed: true;
  destroy(): unknown;
  once(event: 'close', listener: () => void): unknown;
}

const isStreamed = (body: unknown): body is StreamedBody =>
  typeof body === 'object' && body !== null && (body as { streamed?: unknown }).streamed === true;

/**
 * A streamed body lives only while it is an answer on its way to a connected client: it is destroyed (its
 * `onClose` work runs, an event stream gives back its slot) as soon as its response closes, or its
 * connection does, whichever comes first and whatever ended it (the client, a proxy, the server, a
 * response that never reached the socket: a pipelined answer queued behind one the client does not read
 * emits no `close` of its own). A HEAD's answer carries no body: the stream its GET would have opened is
 * destroyed before the answer is written, so that the HEAD holds nothing (five HEADs once held an account's
 * event streams, and their slots, until the access token expired).
 */
function endWithTheConnection(body: StreamedBody, request: FastifyRequest, reply: FastifyReply): void {
  const socket = request.raw.socket;
  if (request.method === 'HEAD' || reply.raw.destroyed || socket.destroyed) {
    body.destroy();
    return;
  }
  const end = () => body.destroy();
  reply.raw.once('close', end);
  socket.once('close', end);
  body.once('close', () => {
    reply.raw.off('close', end);
    socket.off('close', end);
  });
}

/**
 * Node keeps the header text of a response for as long as the response is open (`_header`, read only as
 * "sent" from then on), as it built it: a chain of some 46 joined pieces, about 1.4 KB of heap where the text
 * is 330 bytes. A stream stays open for hours and an instance holds thousands: once the header is written,
 * the same text as one string (5,000 streams: about 5 MB of heap less).
 */
function compactHeader(response: { _header?: unknown }): void {
  if (typeof response._header === 'string') {
    response._header = ownCopy(response._header);
  }
}

/** From this many UTF-16 units on, a JSON answer is written as bytes (`answerBytes`). */
const ANSWER_AS_BYTES_FROM = 16 * 1024;

/**
 * A large answer (a list page: 100 movements are about 50 KB) encoded to UTF-8 once: as a string, its bytes
 * were counted twice (the owed-bytes bound of plugins/overload.ts and Fastify's Content-Length), and Node
 * copied it once more to put the header before it, then encoded it as it wrote. A Buffer's length is known,
 * and Node writes the header and the bytes as they are. A small answer stays a string (one write, no Buffer
 * to make).
 */
function answerBytes(json: string): string | Buffer {
  return json.length >= ANSWER_AS_BYTES_FROM ? Buffer.from(json, 'utf8') : json;
}

function noStore(_request: FastifyRequest, reply: FastifyReply, done: () => void): void {
  reply.header('cache-control', 'no-store');
  done();
}

type OnRequest = (request: FastifyRequest, reply: FastifyReply, done: () => void) => void;

/**
 * Counts the requests that send a parameter the spec marks deprecated (the token endpoint's credentials in
 * the query string), whether it is read or a body wins, and whether the request is then answered or refused
 * (validation, rate limit): the query string is in the logs either way.
 */
function deprecatedParametersCounter(
  operationId: OperationId,
  parameters: OperationMeta['deprecatedParameters'],
  metrics: Context['metrics'],
): OnRequest {
  const names = {
    query: parameters.filter((p) => p.in === 'query').map((p) => p.name),
    header: parameters.filter((p) => p.in === 'header').map((p) => p.name.toLowerCase()),
  };
  return (request, _reply, done) => {
    const query = request.query as Record<string, unknown> | undefined;
    if (
      names.query.some((name) => query?.[name] !== undefined) ||
      names.header.some((name) => request.headers[name] !== undefined)
    ) {
      metrics.deprecatedParameterSent(operationId);
    }
    done();
  };
}

/** The route's onRequest hooks, or none (undefined: Fastify adds no hook). */
function onRequestHooks(hooks: (OnRequest | null)[]): OnRequest[] | undefined {
  const present = hooks.filter((hook) => hook !== null);
  return present.length > 0 ? present : undefined;
}

export interface RouteSettings {
  handlers: HandlerMap<Context>;
  /** The spec: each operation's security requirements. */
  specification: { paths?: unknown; security?: readonly SecurityRequirement[] };
  /** The checks of the spec's security schemes, by name (also given to glue). */
  securityChecks: Readonly<Record<string, SecurityCheck>>;
  /** The context of public operations (shared); a signed-in call gets its own, with its caller. */
  publicContext: Context;
  /** Requests a minute per client address on rate-limited operations. */
  rateLimit: number;
}

/**
 * glue's `operationResolver`: glue spreads what it returns over the route it builds; method and url are
 * given exactly as glue makes them (`{param}` becomes `:param`), its schema is kept.
 */
export function routeResolver({ handlers, specification, securityChecks, publicContext, rateLimit }: RouteSettings) {
  const paths = (specification.paths ?? {}) as Record<string, Record<string, { security?: SecurityRequirement[] }>>;
  return (operationId: string, method: string, openapiPath: string): RouteOptions => {
    // The compiler already requires every handler; this refuses to start if one is missing all the same.
    const handler = (handlers as unknown as Record<string, AnyHandler | undefined>)[operationId];
    if (typeof handler !== 'function') throw new Error(`no handler for operation ${operationId} of the spec`);
    const id = operationId as OperationId;
    const meta: OperationMeta = operationMeta[id];
    const security = ownSecurityCheck(
      paths[openapiPath]?.[method.toLowerCase()]?.security ?? specification.security,
      securityChecks,
    );
    return {
      method: method.toUpperCase() as RouteOptions['method'],
      url: openapiPath.replace(/{(\w+)}/g, ':$1'),
      config: {
        operationId: id,
        refusalsCounted: meta.refusalsCounted,
        ...(meta.rateLimited ? { rateLimit: { max: rateLimit, timeWindow: 60_000 } } : {}),
      },
      ...preValidationOf(meta),
      ...(meta.bodyContentTypes.length > 0 ? { validatorCompiler: exactValidators } : {}),
      // Before validation, so that refusals carry the header and are counted too.
      onRequest: onRequestHooks([
        meta.noStore ? noStore : null,
        meta.deprecatedParameters.length > 0
          ? deprecatedParametersCounter(id, meta.deprecatedParameters, publicContext.metrics)
          : null,
      ]),
      // Glue's route preHandler is the security check: replaced only by the same check, made directly.
      ...(security ? { preHandler: security } : {}),
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const caller = request.caller;
        // The client's address, for the limits per address: where they apply (signed in, or the rate-limited
        // token endpoint); the public reads share one context.
        const result = await handler(
          { params: request.params ?? {}, query: request.query ?? {}, body: bodyOf(request), headers: request.headers },
          caller || meta.rateLimited
            ? { ...publicContext, caller: caller ?? null, client: addressKey(request.ip) }
            : publicContext,
        );
        if (meta.deprecated) {
          reply.headers(deprecationHeaders(meta, (request.params ?? {}) as Record<string, string>, result.body));
        }
        if (result.headers) reply.headers(result.headers);
        if (meta.servedFromCatalogue) {
          const staleMs = publicContext.catalogue.staleMs();
          if (staleMs !== null) reply.header('catalogue-age', String(Math.floor(staleMs / 1000)));
        }
        // Stored JSON text goes out as it is.
        if (result.body instanceof JsonText) {
          return reply.code(result.status).type('application/json; charset=utf-8').send(answerBytes(result.body.json));
        }
        // Objects through the response schema's serializer; a stream (text/event-stream) is piped as it is
        // written, and the client's going away destroys it.
        if (isStreamed(result.body)) {
          endWithTheConnection(result.body, request, reply);
          // Node writes the header with the first chunk the pipe passes on (after this listener's turn).
          const response = reply.raw as unknown as { _header?: unknown };
          reply.raw.once('pipe', (source: NodeJS.ReadableStream) => {
            source.once('data', () => compactHeader(response));
          });
        }
        return reply.code(result.status).send(result.body);
      },
    };
  };
}
