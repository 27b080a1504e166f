/**
 * `client.api`: openapi-fetch over the spec's types, with the session's middleware (the bearer token on the
 * operations that need one, one refresh and one repeat on a 401 with code 10000) and every call run under
 * the call policy (policy.ts: deadline, retries of idempotent calls). Its methods keep openapi-fetch's types.
 */
import type { paths } from '@gateway/generated';
import { operationMeta } from '@gateway/generated';
import type { Client, Middleware } from 'openapi-fetch';
import { errorCatalogue, errorCodeOf } from './errors.js';
import { type CallOptions, type Retryable, withPolicy } from './policy.js';
import type { Session } from './session.js';

export type ApiClient = Client<paths>;

/** The methods that need a token, by path template (looked up on every call: no string is built for it). */
const protectedMethods = new Map<string, Set<string>>();
for (const meta of Object.values(operationMeta)) {
  if (meta.security.length === 0) continue;
  const methods = protectedMethods.get(meta.path) ?? new Set<string>();
  protectedMethods.set(meta.path, methods.add(meta.method));
}
// A Request's method is upper case for every method the spec uses (fetch normalizes GET, POST, ...).
const isProtected = (method: string, schemaPath: string) => protectedMethods.get(schemaPath)?.has(method) === true;

/** The session's middleware: the token on protected calls; on a 401 for an expired token, refresh once and repeat. */
export function sessionMiddleware(session: Session, fetchImpl: (request: Request) => Promise<Response>): Middleware {
  const settle = async (request: Request, response: Response): Promise<Response | undefined> => {
    if (response.status !== 401 || !(await session.current())) return undefined;
    const body: unknown = await response
      .clone()
      .json()
      .catch(() => undefined);
    if (errorCodeOf(body) !== errorCatalogue.invalid_access_token.code) return undefined;
    const stale = request.headers.get('Authorization')?.replace(/^Bearer /, '');
    const fresh = await session.refresh(stale);
    const again = new Request(request);
    again.headers.set('Authorization', `Bearer ${fresh.accessToken}`);
    return fetchImpl(again);
  };
  // Public calls pass through synchronously: an async hook costs a promise per call.
  return {
    onRequest({ request, schemaPath }) {
      if (!isProtected(request.method, schemaPath)) return undefined;
      return session.accessToken().then((token) => {
        if (token) request.headers.set('Authorization', `Bearer ${token}`);
        return request;
      });
    },
    onResponse({ request, response, schemaPath }) {
      if (!isProtected(request.method, schemaPath)) return undefined;
      return settle(request, response);
    },
  };
}

/** What a call may be retried after (policy.ts): reads and the revocation always; the refresh grant on 429/503. */
function retryableOf(method: string, url: string, body: unknown): Retryable {
  if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return 'idempotent';
  if (url === '/v1/oauth2/revoke') return 'idempotent';
  const grant = (body as { grant_type?: unknown } | undefined)?.grant_type;
  return url === '/v1/oauth2/token' && grant === 'refresh_token' ? 'unprocessed' : 'never';
}

interface Init {
  body?: unknown;
  signal?: AbortSignal | null;
  parseAs?: string;
}
type Call = (method: string, url: string, init?: Init) => Promise<{ response: Response }>;
const METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH', 'TRACE'] as const;

/** `base`'s methods under the call policy `options`; `use`/`eject` are `base`'s own. */
export function withCallPolicy(base: ApiClient, options: CallOptions): ApiClient {
  const request = base.request as unknown as Call;
  const call: Call = (method, url, init = {}) =>
    withPolicy(
      (signal) => request(method, url, { ...init, signal }),
      retryableOf(method, url, init.body),
      options,
      init.signal,
      init.parseAs === 'stream',
    );
  const client: Record<string, unknown> = { ...base, request: call };
  for (const method of METHODS) client[method] = (url: string, init?: Init) => call(method, url, init);
  return client as unknown as ApiClient;
}
