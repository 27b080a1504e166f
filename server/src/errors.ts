/**
 * Errors of the API: each names an entry of the spec's error catalogue (generated), which gives its code
 * and HTTP status. Domain code throws them; the app's one error handler turns them into the error body.
 */
import { type ErrorName, errorCatalogue } from '@gateway/generated';

export type ErrorDetails = Readonly<Record<string, string>>;

export interface ErrorItem {
  code: number;
  message: string;
  details?: ErrorDetails;
}

export class ApiError extends Error {
  readonly kind: ErrorName;
  readonly details: ErrorDetails | undefined;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    kind: ErrorName,
    message?: string,
    options: { details?: ErrorDetails; headers?: Record<string, string> } = {},
  ) {
    super(message ?? errorCatalogue[kind].message);
    this.kind = kind;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }

  get status(): number {
    return errorCatalogue[this.kind].status;
  }

  get code(): number {
    return errorCatalogue[this.kind].code;
  }

  toBody(): { errors: ErrorItem[] } {
    return { errors: [{ code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) }] };
  }
}

/** The error body of a catalogue entry. */
export function errorBody(kind: ErrorName, message?: string, details?: ErrorDetails): { errors: ErrorItem[] } {
  return new ApiError(kind, message, { details }).toBody();
}
