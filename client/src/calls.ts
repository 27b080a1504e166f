/**
 * `client.calls`: one plain method per operation of the spec, `client.calls.getPlatform({ id: 'ETH' })`,
 * generated from it (generated/src/calls.ts: each operation's parameters, where they travel, its answer's
 * type). Here they become requests of `client.api`, so that they run under its session middleware and call
 * policy; an answer that is not a success is thrown as a GatewayError, as the pagers do.
 */
import { type CallShape, callShapes, type GatewayCalls, type OperationId, operationMeta } from '@gateway/generated';
import type { ApiClient } from './api.js';
import { type CallResult, unwrap } from './errors.js';

/** A call's own options. */
export interface CallInit {
  /** Ends the call (and its retries) early: it throws a GatewayError of kind `abort`. */
  signal?: AbortSignal;
  /** More request headers (the session's `Authorization` is set by the client). */
  headers?: Record<string, string>;
}

/** Every operation of the spec as a method: parameters by name, the success's body as the answer. */
export type GatewayCallsClient = GatewayCalls<CallInit>;

const FORM = 'application/x-www-form-urlencoded';
/** A form body: each field once, as text (the forms of the spec hold strings). */
export const formBody = (fields: unknown) => new URLSearchParams(fields as Record<string, string>).toString();

type Params = Record<string, unknown>;
type Request = (
  method: string,
  url: string,
  init: Record<string, unknown>,
) => Promise<CallResult<unknown> & { response: Response }>;

/** The fields of `params` named in `names`, or undefined when none is given. */
function pick(params: Params, names: readonly string[]): Params | undefined {
  const picked = Object.fromEntries(names.filter((name) => params[name] !== undefined).map((n) => [n, params[n]]));
  return Object.keys(picked).length > 0 ? picked : undefined;
}

function call(request: Request, id: OperationId, shape: CallShape) {
  const { method, path } = operationMeta[id];
  const sentElsewhere = new Set([...shape.path, ...shape.query]);
  return async (params: Params = {}, init: CallInit = {}) => {
    const body = shape.body
      ? Object.fromEntries(Object.entries(params).filter(([name]) => !sentElsewhere.has(name)))
      : undefined;
    const headers = { ...init.headers };
    if (shape.body === 'form') headers['Content-Type'] = FORM;
    if (shape.answer === 'stream') headers.Accept ??= 'text/event-stream';
    return unwrap(
      await request(method, path, {
        params: { path: pick(params, shape.path), query: pick(params, shape.query) },
        ...(body && { body }),
        ...(shape.body === 'form' && { bodySerializer: formBody }),
        headers,
        parseAs: shape.answer,
        signal: init.signal,
      }),
    );
  };
}

/** The calls of `api` (a client of `createGatewayClient`, with its session and call policy). */
export function createCalls(api: ApiClient): GatewayCallsClient {
  const request = api.request as unknown as Request;
  const calls: Record<string, unknown> = {};
  for (const [id, shape] of Object.entries(callShapes)) calls[id] = call(request, id as OperationId, shape);
  return calls as unknown as GatewayCallsClient;
}
