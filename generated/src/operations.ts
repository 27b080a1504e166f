// DO NOT EDIT. Generated from spec/ by `npm run generate` (scripts/generate.mjs).
// Change the spec and regenerate instead.

import type { operations } from './schema.js';

/** The operationId of every operation of the spec. */
export type OperationId = keyof operations;

/** What the router, the security layer and the client need to know of an operation. */
export interface OperationMeta {
  readonly method: 'GET' | 'PUT' | 'POST' | 'DELETE' | 'OPTIONS' | 'HEAD' | 'PATCH' | 'TRACE';
  /** OpenAPI path template, e.g. `/v1/platforms/{id}`. */
  readonly path: string;
  /** Names of the security schemes that protect it; empty when it is public. */
  readonly security: readonly string[];
  readonly deprecated: boolean;
  /** operationId of the operation that replaces a deprecated one (`x-successor`). */
  readonly successor: OperationId | null;
  /** When it was deprecated (`x-deprecated-at`, ISO 8601). */
  readonly deprecatedAt: string | null;
  /** Content types of the request body it accepts. */
  readonly bodyContentTypes: readonly string[];
  /** Content types of its success responses. */
  readonly responseContentTypes: readonly string[];
  /** Query parameters that have a default in the spec (present in every validated request). */
  readonly queryDefaults: readonly string[];
  /** Parameters (path or query) whose schema is a number or an integer. */
  readonly numericParameters: readonly string[];
  /** Its answers carry `Cache-Control: no-store` (it is protected, or its responses document the header). */
  readonly noStore: boolean;
  /** Limited per client address (`x-rate-limited`). */
  readonly rateLimited: boolean;
}

/** Per-operation metadata, keyed by operationId. */
export const operationMeta = {
  createToken: { method: "POST", path: "/v1/oauth2/token", security: [], deprecated: false, successor: null, deprecatedAt: null, bodyContentTypes: ["application/x-www-form-urlencoded","application/json"], responseContentTypes: ["application/json"], queryDefaults: [], numericParameters: [], noStore: true, rateLimited: true },
  listDepositCurrencies: { method: "GET", path: "/v1/deposit/currencies", security: [], deprecated: false, successor: null, deprecatedAt: null, bodyContentTypes: [], responseContentTypes: ["application/json"], queryDefaults: ["limit","offset"], numericParameters: ["limit","offset"], noStore: false, rateLimited: false },
  getDepositCurrencyOnDefaultPlatform: { method: "GET", path: "/v1/deposit/currencies/{currency}", security: [], deprecated: true, successor: "getDepositCurrency", deprecatedAt: "2023-06-01T00:00:00Z", bodyContentTypes: [], responseContentTypes: ["application/json"], queryDefaults: [], numericParameters: [], noStore: false, rateLimited: false },
  getDepositCurrency: { method: "GET", path: "/v1/deposit/currencies/{currency}/{platform}", security: [], deprecated: false, successor: null, deprecatedAt: null, bodyContentTypes: [], responseContentTypes: ["application/json"], queryDefaults: [], numericParameters: [], noStore: false, rateLimited: false },
  getDepositAddressesOnDefaultPlatform: { method: "GET", path: "/v1/deposit/addresses/{currency}", security: ["bearer"], deprecated: true, successor: "getDepositAddresses", deprecatedAt: "2023-06-01T00:00:00Z", bodyContentTypes: [], responseContentTypes: ["application/json"], queryDefaults: [], numericParameters: [], noStore: true, rateLimited: false },
  getDepositAddresses: { method: "GET", path: "/v1/deposit/addresses/{currency}/{platform}", security: ["bearer"], deprecated: false, successor: null, deprecatedAt: null, bodyContentTypes: [], responseContentTypes: ["application/json"], queryDefaults: [], numericParameters: [], noStore: true, rateLimited: false },
  listWithdrawalCurrencies: { method: "GET", path: "/v1/withdraw/currencies", security: [], deprecated: false, successor: null, deprecatedAt: null, bodyContentTypes: [], responseContentTypes: ["application/json"], queryDefaults: ["limit","offset"], numericParameters: ["limit","offset"], noStore: false, rateLimited: false },
  getWithdrawalCurrencyOnDefaultPlatform: { method: "GET", path: "/v1/withdraw/currencies/{currency}", security: [], deprecated: true, successor: "getWithdrawalCurrency", deprecatedAt: "2023-06-01T00:00:00Z", bodyContentTypes: [], responseContentTypes: ["application/json"], queryDefaults: [], numericParameters: [], noStore: false, rateLimited: false },
  getWithdrawalCurrency: { method: "GET", path: "/v1/withdraw/currencies/{currency}/{platform}", security: [], deprecated: false, successor: null, deprecatedAt: null, bodyContentTypes: [], responseContentTypes: ["application/json"], queryDefaults: [], numericParameters: [], noStore: false, rateLimited: false },
  getWithdrawalAddressesOnDefaultPlatform: { method: "GET", path: "/v1/withdraw/addresses/{currency}/{address}", security: ["bearer"], deprecated: true, successor: "getWithdrawalAddresses", deprecatedAt: "2023-06-01T00:00:00Z", bodyContentTypes: [], responseContentTypes: ["application/json"], queryDefaults: [], numericParameters: [], noStore: true, rateLimited: false },
  getWithdrawalAddresses: { method: "GET", path: "/v1/withdraw/addresses/{currency}/{address}/{platform}", security: ["bearer"], deprecated: false, successor: null, deprecatedAt: null, bodyContentTypes: [], responseContentTypes: ["application/json"], queryDefaults: [], numericParameters: [], noStore: true, rateLimited: false },
  listMovements: { method: "GET", path: "/v1/movements", security: ["bearer"], deprecated: false, successor: null, deprecatedAt: null, bodyContentTypes: [], responseContentTypes: ["application/json"], queryDefaults: ["limit"], numericParameters: ["limit"], noStore: true, rateLimited: false },
  getMovement: { method: "GET", path: "/v1/movements/{id}", security: ["bearer"], deprecated: false, successor: null, deprecatedAt: null, bodyContentTypes: [], responseContentTypes: ["application/json"], queryDefaults: [], numericParameters: [], noStore: true, rateLimited: false },
  listPlatforms: { method: "GET", path: "/v1/platforms", security: [], deprecated: false, successor: null, deprecatedAt: null, bodyContentTypes: [], responseContentTypes: ["application/json"], queryDefaults: ["limit"], numericParameters: ["limit"], noStore: false, rateLimited: false },
  getPlatform: { method: "GET", path: "/v1/platforms/{id}", security: [], deprecated: false, successor: null, deprecatedAt: null, bodyContentTypes: [], responseContentTypes: ["application/json"], queryDefaults: [], numericParameters: [], noStore: false, rateLimited: false },
  listTrades: { method: "GET", path: "/v1/addresses/{ledger_address}/trades/{amount_currency_id}/{price_currency_id}", security: [], deprecated: false, successor: null, deprecatedAt: null, bodyContentTypes: [], responseContentTypes: ["application/json"], queryDefaults: ["sort","limit"], numericParameters: ["limit"], noStore: false, rateLimited: false },
  getStakingYield: { method: "GET", path: "/v1/apy/staking/{currency_id}", security: [], deprecated: false, successor: null, deprecatedAt: null, bodyContentTypes: [], responseContentTypes: ["application/json"], queryDefaults: [], numericParameters: [], noStore: false, rateLimited: false },
  getLiveness: { method: "GET", path: "/health/live", security: [], deprecated: false, successor: null, deprecatedAt: null, bodyContentTypes: [], responseContentTypes: ["application/json"], queryDefaults: [], numericParameters: [], noStore: false, rateLimited: false },
  getReadiness: { method: "GET", path: "/health/ready", security: [], deprecated: false, successor: null, deprecatedAt: null, bodyContentTypes: [], responseContentTypes: ["application/json"], queryDefaults: [], numericParameters: [], noStore: false, rateLimited: false },
  getMetrics: { method: "GET", path: "/metrics", security: [], deprecated: false, successor: null, deprecatedAt: null, bodyContentTypes: [], responseContentTypes: ["text/plain"], queryDefaults: [], numericParameters: [], noStore: false, rateLimited: false },
} as const satisfies Record<OperationId, OperationMeta>;

type ParametersIn<Op extends OperationId, Where extends 'path' | 'query' | 'header'> =
  operations[Op]['parameters'] extends Partial<Record<Where, infer V>>
    ? [NonNullable<V>] extends [never]
      ? Record<string, never>
      : NonNullable<V>
    : Record<string, never>;

type QueryDefaults<Op extends OperationId> = (typeof operationMeta)[Op]['queryDefaults'][number];

/** The validated query: parameters with a default in the spec are always present. */
type ValidatedQuery<Op extends OperationId> = ParametersIn<Op, 'query'> &
  Required<Pick<ParametersIn<Op, 'query'>, Extract<QueryDefaults<Op>, keyof ParametersIn<Op, 'query'>>>>;

/** The body of a response, in whichever media type the spec gives it (JSON, or text for metrics). */
type ResponseBody<R> = R extends { content: infer C } ? C[keyof C] : never;

type RequestBodyOf<Op extends OperationId> = [NonNullable<operations[Op]['requestBody']>] extends [never]
  ? undefined
  : NonNullable<operations[Op]['requestBody']> extends { content: infer C }
    ? C[keyof C] | (undefined extends operations[Op]['requestBody'] ? undefined : never)
    : undefined;

type SuccessStatus<Op extends OperationId> = Extract<keyof operations[Op]['responses'], 200 | 201 | 202 | 204>;

/** What a handler receives: validated path parameters, query, headers and body of the operation. */
export interface OperationRequest<Op extends OperationId> {
  readonly params: ParametersIn<Op, 'path'>;
  readonly query: ValidatedQuery<Op>;
  readonly body: RequestBodyOf<Op>;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/**
 * A JSON body already serialized, standing for a `T`: a server may answer from stored JSON text instead of
 * building objects and serializing them again. Whoever makes one vouches that `json` is the JSON text of a
 * `T`; the phantom property keeps one body type from passing for another.
 */
export interface SerializedJson<T> {
  readonly json: string;
  readonly __body?: T;
}

/** What a handler answers: one of the operation's success statuses with its body. Errors are thrown. */
export type OperationReply<Op extends OperationId> = {
  [S in SuccessStatus<Op>]: {
    status: S;
    body: ResponseBody<operations[Op]['responses'][S]> | SerializedJson<ResponseBody<operations[Op]['responses'][S]>>;
    headers?: Readonly<Record<string, string>>;
  };
}[SuccessStatus<Op>];

/** The handler of one operation. `Context` is whatever the server passes (store, caller identity, clock…). */
export type OperationHandler<Op extends OperationId, Context> = (
  request: OperationRequest<Op>,
  context: Context,
) => Promise<OperationReply<Op>>;

/** One handler per operation of the spec: a missing or extra handler, or a wrong reply, fails to compile. */
export type HandlerMap<Context> = { readonly [Op in OperationId]: OperationHandler<Op, Context> };
