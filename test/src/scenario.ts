/**
 * Contract scenarios are data: Given a target (the mock, or the real server behind Prism's validating
 * proxy), When this request is sent, Then this status and a body valid for it under the spec come back.
 */
import type { ErrorCode, OperationId } from '@gateway/generated';

/** What a target provides to build requests that depend on real data (tokens, ids). */
export interface ScenarioContext {
  /** A valid `Authorization` header value. */
  bearer(): Promise<string>;
  /** The form fields of a password grant that the target accepts. */
  passwordGrant(): Promise<Record<string, string>>;
  /** A refresh token that has not been used yet. */
  freshRefreshToken(): Promise<string>;
  /** The form fields of a password grant whose sign-in was revoked since (a real server refuses it, 11309). */
  signedOutPasswordGrant(): Promise<Record<string, string>>;
  /** The id of a movement of the signed-in account. */
  movementId(): Promise<string>;
}

export type Target = 'mock' | 'server';

export interface ScenarioRequest {
  method?: string;
  path: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  /** `token`: a valid bearer token; `bad-token`: a syntactically valid but false one. Default: none. */
  auth?: 'token' | 'bad-token';
  body?: { contentType: string; text: string };
}

export interface Scenario {
  /** One line: the situation and the outcome. */
  name: string;
  /** The operation whose documented responses the answer must match; null for a path no operation has. */
  operationId: OperationId | null;
  request: ScenarioRequest | ((context: ScenarioContext) => Promise<ScenarioRequest>);
  expect: {
    status: number;
    /** The catalogue code the real server must answer with (the mock serves the spec's examples). */
    code?: ErrorCode;
    /** Response headers that must be present and match. */
    headers?: Record<string, RegExp>;
  };
  /** Targets the scenario applies to; both by default. */
  only?: Target;
}

export const form = (fields: Record<string, string>) => ({
  contentType: 'application/x-www-form-urlencoded',
  text: new URLSearchParams(fields).toString(),
});

/** Asks Prism's mock for one documented response; the real server ignores the header. */
export const prefer = (status: number) => ({ Prefer: `code=${status}` });
