/**
 * The spec's paths as the hooks see them: every error answer is a `GatewayError` (the client's one error
 * type: kind, status, code, message, request id), where openapi-fetch gives the raw error body. The types
 * are the client's own (`paths` of `@gateway/client`); only the error answers' content is replaced, and
 * `withGatewayErrors` makes the calls match.
 */
import { type ApiClient, GatewayError, type paths } from '@gateway/client';
import type { Client } from 'openapi-fetch';
import type { ErrorStatus } from 'openapi-typescript-helpers';

/** An error answer as the hooks throw it. */
interface GatewayErrorAnswer {
  headers: { [name: string]: unknown };
  content: { 'application/json': GatewayError };
}

type WithGatewayErrors<Operation> = Operation extends { responses: infer Responses }
  ? Omit<Operation, 'responses'> & {
      responses: { [Status in keyof Responses]: Status extends ErrorStatus ? GatewayErrorAnswer : Responses[Status] };
    }
  : Operation;

/** `paths` with `GatewayError` as every error answer's body. */
export type GatewayPaths = {
  [Path in keyof paths]: { [Method in keyof paths[Path]]-?: WithGatewayErrors<paths[Path][Method]> };
};

/** The paths that have a GET. */
export type GetPath = {
  [Path in keyof paths]: paths[Path] extends { get: { responses: unknown } } ? Path : never;
}[keyof paths];

const METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH', 'TRACE'] as const;
type Call = (url: string, init?: unknown) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

/**
 * `api`'s methods with every failed answer's `error` a `GatewayError` (an empty error body too, which
 * openapi-fetch gives as `''` and openapi-react-query would take for a success). Failures without an answer
 * (network, timeout, abort) are thrown by the client as `GatewayError`s already.
 */
export function withGatewayErrors(api: ApiClient): Client<GatewayPaths> {
  const client: Record<string, Call> = {};
  for (const method of METHODS) {
    const call = (api[method] as unknown as Call).bind(api);
    client[method] = async (url, init) => {
      const result = await call(url, init);
      if (result.response.ok) return result;
      return { error: GatewayError.of(result.response, result.error), response: result.response };
    };
  }
  return client as unknown as Client<GatewayPaths>;
}
