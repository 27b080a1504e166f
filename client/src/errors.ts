/**
 * Errors of the gateway, as the spec gives them: `{ errors: [{ code, message, details? }] }`, with the
 * catalogue's codes. Calls of the typed client return them as values (`{ data, error, response }`);
 * iterators and the session throw a GatewayError carrying the same body.
 */

import type { components } from '@gateway/generated';
import { type ErrorCode, errorCatalogue } from '@gateway/generated';

export type ErrorBody = components['schemas']['ErrorBody'];
export type { ErrorCode };
export { errorCatalogue };

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

export class GatewayError extends Error {
  override readonly name = 'GatewayError';
  readonly status: number;
  readonly code: ErrorCode | undefined;
  readonly body: ErrorBody | undefined;

  constructor(status: number, body: unknown, message?: string) {
    const parsed = isErrorBody(body) ? body : undefined;
    const first = parsed?.errors[0];
    super(message ?? (first ? `${first.code}: ${first.message}` : `HTTP ${status}`));
    this.status = status;
    this.code = first?.code;
    this.body = parsed;
  }
}

/** The session ended: the refresh token was refused (used, revoked or expired). Sign in again. */
export class SessionEndedError extends GatewayError {
  constructor(status: number, body: unknown) {
    super(status, body, 'the session ended: the refresh token was refused; sign in again');
  }
}
