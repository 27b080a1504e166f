/**
 * Errors of the gateway, as the spec gives them: `{ errors: [{ code, message, details? }] }`, with the
 * catalogue's codes. Calls of the typed client return them as values (`{ data, error, response }`);
 * `gatewayErrorOf(result)` turns such a result into the one error type the throwing helpers throw:
 * `GatewayError`, whose `kind` says what failed (the server's answer, the session, the network, the
 * timeout or the caller's abort).
 */

import type { components } from '@gateway/generated';
import { type ErrorCode, errorCatalogue } from '@gateway/generated';

export type ErrorBody = components['schemas']['ErrorBody'];
export type { ErrorCode };
export { errorCatalogue };

/**
 * What failed: `api` the server answered with an error (status, code); `session` the session ended (sign in
 * again); `network` no answer (connection refused or dropped, DNS, CORS); `timeout` no answer in time;
 * `abort` the caller's signal ended the call.
 */
export type ErrorKind = 'api' | 'session' | 'network' | 'timeout' | 'abort';

const isErrorBody = (value: unknown): value is ErrorBody =>
  typeof value === 'object' && value !== null && Array.isArray((value as ErrorBody).errors);

/** The first catalogue code of an error body (or of a GatewayError), if any. */
export function errorCodeOf(error: unknown): ErrorCode | undefined {
  const body = error instanceof GatewayError ? error.body : error;
  return isErrorBody(body) ? body.errors[0]?.code : undefined;
}

/** True when the error says the access token is missing, expired or invalid (code 10000): sign in again. */
export function isExpiredToken(error: unknown): boolean {
  return errorCodeOf(error) === errorCatalogue.invalid_access_token.code;
}

/**
 * A `Retry-After` in milliseconds (delta-seconds or an HTTP date), undefined when absent or unreadable.
 * @see https://www.rfc-editor.org/rfc/rfc9110#field.retry-after
 */
export function retryAfterMs(response: Response, now = Date.now()): number | undefined {
  const value = response.headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export interface GatewayErrorDetails {
  kind?: ErrorKind;
  /** The server's `X-Request-Id` of the answer: quote it to support. */
  requestId?: string | undefined;
  retryAfterMs?: number | undefined;
  cause?: unknown;
}

export class GatewayError extends Error {
  override readonly name: string = 'GatewayError';
  /** The HTTP status; 0 when there was no answer (kinds `network`, `timeout`, `abort`). */
  readonly status: number;
  readonly code: ErrorCode | undefined;
  readonly body: ErrorBody | undefined;
  readonly kind: ErrorKind;
  /** The server's `X-Request-Id` (when its CORS exposes it to a browser page). */
  readonly requestId: string | undefined;
  /** How long the server asked to wait before trying again (`Retry-After`), when it said so. */
  readonly retryAfterMs: number | undefined;

  constructor(status: number, body: unknown, message?: string, details: GatewayErrorDetails = {}) {
    const parsed = isErrorBody(body) ? body : undefined;
    const first = parsed?.errors[0];
    super(
      message ?? (first ? `${first.code}: ${first.message}` : `HTTP ${status}`),
      details.cause === undefined ? undefined : { cause: details.cause },
    );
    this.status = status;
    this.code = first?.code;
    this.body = parsed;
    this.kind = details.kind ?? 'api';
    this.requestId = details.requestId;
    this.retryAfterMs = details.retryAfterMs;
  }

  /** The error of an answer: its status, body, `X-Request-Id` and `Retry-After`. */
  static of(response: Response, body: unknown): GatewayError {
    return new GatewayError(response.status, body, undefined, detailsOf(response));
  }
}

const detailsOf = (response: Response): GatewayErrorDetails => ({
  requestId: response.headers.get('x-request-id') ?? undefined,
  retryAfterMs: retryAfterMs(response),
});

/** The session ended: the refresh token was refused (used, revoked or expired), or it was signed out. Sign in again. */
export class SessionEndedError extends GatewayError {
  constructor(status: number, body: unknown, response?: Response) {
    super(status, body, 'the session ended: the refresh token was refused; sign in again', {
      ...(response && detailsOf(response)),
      kind: 'session',
    });
  }
}

/** A call's result as openapi-fetch gives it. */
export interface CallResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The GatewayError of a `client.api` result that failed (kind `api`), or undefined when it succeeded. */
export function gatewayErrorOf(result: CallResult<unknown>): GatewayError | undefined {
  return result.response.ok ? undefined : GatewayError.of(result.response, result.error);
}

/** The data of a `client.api` result, or its GatewayError thrown: `unwrap(await client.api.GET(...))`. */
export function unwrap<T>(result: CallResult<T>): T {
  const error = gatewayErrorOf(result);
  if (error) throw error;
  return result.data as T;
}
