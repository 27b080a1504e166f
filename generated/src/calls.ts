// DO NOT EDIT. Generated from spec/ by `npm run generate` (scripts/generate.mjs).
// Change the spec and regenerate instead.

import type { OperationId } from './operations.js';
import type { operations } from './schema.js';

/** How an operation's named parameters travel, and how its answer is read. */
export interface CallShape {
  /** The names sent in the path. */
  readonly path: readonly string[];
  /** The names sent in the query string. */
  readonly query: readonly string[];
  /** The rest, sent as the body: a form, JSON, or none. */
  readonly body: 'form' | 'json' | null;
  /** The success's body read as JSON, as text, or left as the stream (an event stream). */
  readonly answer: 'json' | 'text' | 'stream';
}

/** Every operation's call, keyed by operationId. */
export const callShapes = {
  createToken: { path: [], query: [], body: "form", answer: "json" },
  revokeToken: { path: [], query: [], body: "form", answer: "json" },
  listDepositCurrencies: { path: [], query: ["limit","offset"], body: null, answer: "json" },
  getDepositCurrencyOnDefaultPlatform: { path: ["currency"], query: [], body: null, answer: "json" },
  getDepositCurrency: { path: ["currency","platform"], query: [], body: null, answer: "json" },
  getDepositAddressesOnDefaultPlatform: { path: ["currency"], query: [], body: null, answer: "json" },
  getDepositAddresses: { path: ["currency","platform"], query: [], body: null, answer: "json" },
  listWithdrawalCurrencies: { path: [], query: ["limit","offset"], body: null, answer: "json" },
  getWithdrawalCurrencyOnDefaultPlatform: { path: ["currency"], query: [], body: null, answer: "json" },
  getWithdrawalCurrency: { path: ["currency","platform"], query: [], body: null, answer: "json" },
  getWithdrawalAddressesOnDefaultPlatform: { path: ["currency","address"], query: [], body: null, answer: "json" },
  getWithdrawalAddresses: { path: ["currency","address","platform"], query: [], body: null, answer: "json" },
  listMovements: { path: [], query: ["limit","after"], body: null, answer: "json" },
  getMovement: { path: ["id"], query: [], body: null, answer: "json" },
  listEvents: { path: [], query: ["last_event_id"], body: null, answer: "stream" },
  listPlatforms: { path: [], query: ["limit","after"], body: null, answer: "json" },
  getPlatform: { path: ["id"], query: [], body: null, answer: "json" },
  listTrades: { path: ["ledger_address","amount_currency_id","price_currency_id"], query: ["timestamp__gte","timestamp__lt","sort","limit","after"], body: null, answer: "json" },
  getStakingYield: { path: ["currency_id"], query: [], body: null, answer: "json" },
  getLiveness: { path: [], query: [], body: null, answer: "json" },
  getReadiness: { path: [], query: [], body: null, answer: "json" },
  getServingState: { path: [], query: [], body: null, answer: "json" },
  getMetrics: { path: [], query: [], body: null, answer: "text" },
} as const satisfies Record<OperationId, CallShape>;

/** The parameters of an operation that takes none. */
export type NoParams = Record<string, never>;

/**
 * One method per operation of the spec: its parameters by name (path, query and body together), its success's
 * body as the answer; `Options` are the client's per-call options.
 */
export interface GatewayCalls<Options> {
  /**
   * Obtain or reissue an access token.
   * `POST /v1/oauth2/token`.
   */
  createToken(params?: NonNullable<operations["createToken"]["requestBody"]>["content"]["application/x-www-form-urlencoded"], options?: Options): Promise<operations["createToken"]["responses"][200]["content"]["application/json"]>;
  /**
   * Revoke a sign-in (log out).
   * `POST /v1/oauth2/revoke`.
   */
  revokeToken(params: NonNullable<operations["revokeToken"]["requestBody"]>["content"]["application/x-www-form-urlencoded"], options?: Options): Promise<operations["revokeToken"]["responses"][200]["content"]["application/json"]>;
  /**
   * List deposit terms.
   * `GET /v1/deposit/currencies`.
   */
  listDepositCurrencies(params?: NonNullable<operations["listDepositCurrencies"]["parameters"]["query"]>, options?: Options): Promise<operations["listDepositCurrencies"]["responses"][200]["content"]["application/json"]>;
  /**
   * Get the deposit terms of a currency on its default platform.
   * `GET /v1/deposit/currencies/{currency}`.
   * @deprecated Use `getDepositCurrency`.
   */
  getDepositCurrencyOnDefaultPlatform(params: operations["getDepositCurrencyOnDefaultPlatform"]["parameters"]["path"], options?: Options): Promise<operations["getDepositCurrencyOnDefaultPlatform"]["responses"][200]["content"]["application/json"]>;
  /**
   * Get the deposit terms of a currency on a platform.
   * `GET /v1/deposit/currencies/{currency}/{platform}`.
   */
  getDepositCurrency(params: operations["getDepositCurrency"]["parameters"]["path"], options?: Options): Promise<operations["getDepositCurrency"]["responses"][200]["content"]["application/json"]>;
  /**
   * Get the account's deposit address for a currency on its default platform.
   * `GET /v1/deposit/addresses/{currency}`, signed in.
   * @deprecated Use `getDepositAddresses`.
   */
  getDepositAddressesOnDefaultPlatform(params: operations["getDepositAddressesOnDefaultPlatform"]["parameters"]["path"], options?: Options): Promise<operations["getDepositAddressesOnDefaultPlatform"]["responses"][200]["content"]["application/json"]>;
  /**
   * Get the account's deposit address for a currency on a platform.
   * `GET /v1/deposit/addresses/{currency}/{platform}`, signed in.
   */
  getDepositAddresses(params: operations["getDepositAddresses"]["parameters"]["path"], options?: Options): Promise<operations["getDepositAddresses"]["responses"][200]["content"]["application/json"]>;
  /**
   * List withdrawal terms.
   * `GET /v1/withdraw/currencies`.
   */
  listWithdrawalCurrencies(params?: NonNullable<operations["listWithdrawalCurrencies"]["parameters"]["query"]>, options?: Options): Promise<operations["listWithdrawalCurrencies"]["responses"][200]["content"]["application/json"]>;
  /**
   * Get the withdrawal terms of a currency on its default platform.
   * `GET /v1/withdraw/currencies/{currency}`.
   * @deprecated Use `getWithdrawalCurrency`.
   */
  getWithdrawalCurrencyOnDefaultPlatform(params: operations["getWithdrawalCurrencyOnDefaultPlatform"]["parameters"]["path"], options?: Options): Promise<operations["getWithdrawalCurrencyOnDefaultPlatform"]["responses"][200]["content"]["application/json"]>;
  /**
   * Get the withdrawal terms of a currency on a platform.
   * `GET /v1/withdraw/currencies/{currency}/{platform}`.
   */
  getWithdrawalCurrency(params: operations["getWithdrawalCurrency"]["parameters"]["path"], options?: Options): Promise<operations["getWithdrawalCurrency"]["responses"][200]["content"]["application/json"]>;
  /**
   * Get the proxy ledger address for a withdrawal on the currency's default platform.
   * `GET /v1/withdraw/addresses/{currency}/{address}`, signed in.
   * @deprecated Use `getWithdrawalAddresses`.
   */
  getWithdrawalAddressesOnDefaultPlatform(params: operations["getWithdrawalAddressesOnDefaultPlatform"]["parameters"]["path"], options?: Options): Promise<operations["getWithdrawalAddressesOnDefaultPlatform"]["responses"][200]["content"]["application/json"]>;
  /**
   * Get the proxy ledger address for a withdrawal to an external address on a platform.
   * `GET /v1/withdraw/addresses/{currency}/{address}/{platform}`, signed in.
   */
  getWithdrawalAddresses(params: operations["getWithdrawalAddresses"]["parameters"]["path"], options?: Options): Promise<operations["getWithdrawalAddresses"]["responses"][200]["content"]["application/json"]>;
  /**
   * List the account's movements.
   * `GET /v1/movements`, signed in.
   */
  listMovements(params?: NonNullable<operations["listMovements"]["parameters"]["query"]>, options?: Options): Promise<operations["listMovements"]["responses"][200]["content"]["application/json"]>;
  /**
   * Get one of the account's movements.
   * `GET /v1/movements/{id}`, signed in.
   */
  getMovement(params: operations["getMovement"]["parameters"]["path"], options?: Options): Promise<operations["getMovement"]["responses"][200]["content"]["application/json"]>;
  /**
   * Stream the account's events.
   * `GET /v1/events`, signed in.
   */
  listEvents(params?: NonNullable<operations["listEvents"]["parameters"]["query"]>, options?: Options): Promise<ReadableStream<Uint8Array>>;
  /**
   * List platforms.
   * `GET /v1/platforms`.
   */
  listPlatforms(params?: NonNullable<operations["listPlatforms"]["parameters"]["query"]>, options?: Options): Promise<operations["listPlatforms"]["responses"][200]["content"]["application/json"]>;
  /**
   * Get a platform.
   * `GET /v1/platforms/{id}`.
   */
  getPlatform(params: operations["getPlatform"]["parameters"]["path"], options?: Options): Promise<operations["getPlatform"]["responses"][200]["content"]["application/json"]>;
  /**
   * List the trades of a ledger address for a currency pair.
   * `GET /v1/addresses/{ledger_address}/trades/{amount_currency_id}/{price_currency_id}`.
   */
  listTrades(params: operations["listTrades"]["parameters"]["path"] & NonNullable<operations["listTrades"]["parameters"]["query"]>, options?: Options): Promise<operations["listTrades"]["responses"][200]["content"]["application/json"]>;
  /**
   * Get the staking yield of a token.
   * `GET /v1/apy/staking/{currency_id}`.
   */
  getStakingYield(params: operations["getStakingYield"]["parameters"]["path"], options?: Options): Promise<operations["getStakingYield"]["responses"][200]["content"]["application/json"]>;
  /**
   * Liveness.
   * `GET /health/live`.
   */
  getLiveness(params?: NoParams, options?: Options): Promise<operations["getLiveness"]["responses"][200]["content"]["application/json"]>;
  /**
   * Readiness.
   * `GET /health/ready`.
   */
  getReadiness(params?: NoParams, options?: Options): Promise<operations["getReadiness"]["responses"][200]["content"]["application/json"]>;
  /**
   * Serving state.
   * `GET /health/serving`.
   */
  getServingState(params?: NoParams, options?: Options): Promise<operations["getServingState"]["responses"][200]["content"]["application/json"]>;
  /**
   * Prometheus metrics.
   * `GET /metrics`.
   */
  getMetrics(params?: NoParams, options?: Options): Promise<string>;
}
