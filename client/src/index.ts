/**
 * The Exchange Gateway client: every operation of the spec, typed and as a plain method; signing in with a ledger key or an
 * Ethereum-style wallet; a session that stays fresh; iterators over lists; exact fee arithmetic.
 * @see ../../spec/openapi.yaml
 */
export type { components, operations, paths } from '@gateway/generated';
export { type Base58, type ChainId, MAX_LIFETIME_SECONDS } from '@gateway/ledger';
export { type Amount, type AmountFormat, formatAmount, parseAmount } from './amounts.js';
export {
  addressOfEthAccount,
  addressOfPublicKey,
  type LedgerSigner,
  signerFromPrivateKey,
  signerFromSeed,
} from './auth/ledger.js';
export {
  type MessageSigner,
  passwordFor,
  type Signer,
  type TypedDataSigner,
  typedDataFor,
  usernameOf,
} from './auth/password.js';
export {
  type CallResult,
  type ErrorBody,
  type ErrorCode,
  type ErrorKind,
  errorCatalogue,
  errorCodeOf,
  GatewayError,
  gatewayErrorOf,
  isExpiredToken,
  SessionEndedError,
  unwrap,
} from './errors.js';
export type { ConnectionState, EventsOptions, GatewayEvent } from './events.js';
export { type AmountCheck, checkAmount, receivedAmount } from './fees.js';
export {
  type ApiClient,
  type CallInit,
  type CallOptions,
  createGatewayClient,
  type GatewayCallsClient,
  type GatewayClient,
  type GatewayClientOptions,
  type LoginOptions,
  type RetryOptions,
  type TradeQuery,
} from './gateway.js';
export { type LockManagerLike, realmLocks } from './locks.js';
export { cursorItems, cursorList, offsetItems, offsetList, type Page, type PagedList, type Pager } from './paginate.js';
export type { SessionChange, SessionSnapshot, SessionStore } from './session.js';
export {
  type KeyValueStorage,
  memoryStorage,
  type SessionTokens,
  type StorageEventLike,
  type StorageEventTarget,
  type TokenStorage,
  type WebStorageOptions,
  webStorage,
} from './storage.js';

import type { paths } from '@gateway/generated';
import createClient, { type ClientOptions } from 'openapi-fetch';

/** The low-level typed client alone (no session), for the public operations or custom auth. */
export function createApiClient(options: ClientOptions) {
  return createClient<paths>(options);
}
