// DO NOT EDIT. Generated from spec/ by `npm run generate` (scripts/generate.mjs).
// Change the spec and regenerate instead.

import type { OperationMeta } from './handler-types.js';
import type { operations } from './schema.js';

/** The operationId of every operation of the spec. */
export type OperationId = keyof operations;

/** Per-operation metadata, keyed by operationId. */
export const operationMeta = {
  createToken: { method: "POST", path: "/v1/oauth2/token", security: [], deprecated: false, successor: null, deprecatedAt: null, bodyContentTypes: ["application/x-www-form-urlencoded","application/json"], responseContentTypes: ["application/json"], queryDefaults: [], numericParameters: [] },
  listDepositCurrencies: { method: "GET", path: "/v1/deposit/currencies", security: [], deprecated: false, successor: null, deprecatedAt: null, bodyContentTypes: [], responseContentTypes: ["application/json"], queryDefaults: ["limit","offset"], numericParameters: ["limit","offset"] },
  getDepositCurrencyOnDefaultPlatform: { method: "GET", path: "/v1/deposit/currencies/{currency}", security: [], deprecated: true, successor: "getDepositCurrency", deprecatedAt: "2023-06-01T00:00:00Z", bodyContentTypes: [], responseContentTypes: ["application/json"], queryDefaults: [], numericParameters: [] },
  getDepositCurrency: { method: "GET", path: "/v1/deposit/currencies/{currency}/{platform}", security: [], deprecated: false, successor: null, deprecatedAt: null, bodyContentTypes: [], responseContentTypes: ["application/json"], queryDefaults: [], numericParameters: [] },
  getDepositAddressesOnDefaultPlatform: { method: "GET", path: "/v1/deposit/addresses/{currency}", security: ["bearer"], deprecated: true, successor: "getDepositAddresses", deprecatedAt: "2023-06-01T00:00:00Z", bodyContentTypes: [], responseContentTypes: ["application/json"], queryDefaults: [], numericParameters: [] },
  getDepositAddresses: { method: "GET", path: "/v1/deposit/addresses/{currency}/{platform}", security: ["bearer"], deprecated: false, successor: null, deprecatedAt: null, bodyContentTypes: [], responseContentTypes: ["application/json"], queryDefaults: [], numericParameters: [] },
  listWithdrawalCurrencies: { method: "GET", path: "/v1/withdraw/currencies", security: [], deprecated: false, successor: null, deprecatedAt: null, bodyContentTypes: [], responseContentTypes: ["application/json"], queryDefaults: ["limit","offset"], numericParameters: ["limit","offset"] },
  getWithdrawalCurrencyOnDefaultPlatform: { method: "GET", path: "/v1/withdraw/currencies/{currency}", security: [], deprecated: true, successor: "getWithdrawalCurrency", deprecatedAt: "2023-06-01T00:00:00Z", bodyContentTypes: [], responseContentTypes: ["application/json"], queryDefaults: [], numericParameters: [] },
  getWithdrawalCurrency: { method: "GET", path: "/v1/withdraw/currencies/{currency}/{platform}", security: [], deprecated: false, successor: null, deprecatedAt: null, bodyContentTypes: [], responseContentTypes: ["application/json"], queryDefaults: [], numericParameters: [] },
  getWithdrawalAddressesOnDefaultPlatform: { method: "GET", path: "/v1/withdraw/addresses/{currency}/{address}", security: ["bearer"], deprecated: true, successor: "getWithdrawalAddresses", deprecatedAt: "2023-06-01T00:00:00Z", bodyContentTypes: [], responseContentTypes: ["application/json"], queryDefaults: [], numericParameters: [] },
  getWithdrawalAddresses: { method: "GET", path: "/v1/withdraw/addresses/{currency}/{address}/{platform}", security: ["bearer"], deprecated: false, successor: null, deprecatedAt: null, bodyContentTypes: [], responseContentTypes: ["application/json"], queryDefaults: [], numericParameters: [] },
  listMovements: { method: "GET", path: "/v1/movements", security: ["bearer"], deprecated: false, successor: null, deprecatedAt: null, bodyContentTypes: [], responseContentTypes: ["application/json"], queryDefaults: ["limit"], numericParameters: ["limit"] },
  getMovement: { method: "GET", path: "/v1/movements/{id}", security: ["bearer"], deprecated: false, successor: null, deprecatedAt: null, bodyContentTypes: [], responseContentTypes: ["application/json"], queryDefaults: [], numericParameters: [] },
  listPlatforms: { method: "GET", path: "/v1/platforms", security: [], deprecated: false, successor: null, deprecatedAt: null, bodyContentTypes: [], responseContentTypes: ["application/json"], queryDefaults: ["limit"], numericParameters: ["limit"] },
  getPlatform: { method: "GET", path: "/v1/platforms/{id}", security: [], deprecated: false, successor: null, deprecatedAt: null, bodyContentTypes: [], responseContentTypes: ["application/json"], queryDefaults: [], numericParameters: [] },
  listTrades: { method: "GET", path: "/v1/addresses/{ledger_address}/trades/{amount_currency_id}/{price_currency_id}", security: [], deprecated: false, successor: null, deprecatedAt: null, bodyContentTypes: [], responseContentTypes: ["application/json"], queryDefaults: ["sort","limit"], numericParameters: ["limit"] },
  getStakingYield: { method: "GET", path: "/v1/apy/staking/{currency_id}", security: [], deprecated: false, successor: null, deprecatedAt: null, bodyContentTypes: [], responseContentTypes: ["application/json"], queryDefaults: [], numericParameters: [] },
  getLiveness: { method: "GET", path: "/health/live", security: [], deprecated: false, successor: null, deprecatedAt: null, bodyContentTypes: [], responseContentTypes: ["application/json"], queryDefaults: [], numericParameters: [] },
  getReadiness: { method: "GET", path: "/health/ready", security: [], deprecated: false, successor: null, deprecatedAt: null, bodyContentTypes: [], responseContentTypes: ["application/json"], queryDefaults: [], numericParameters: [] },
  getMetrics: { method: "GET", path: "/metrics", security: [], deprecated: false, successor: null, deprecatedAt: null, bodyContentTypes: [], responseContentTypes: ["text/plain"], queryDefaults: [], numericParameters: [] },
} as const satisfies Record<OperationId, OperationMeta>;

