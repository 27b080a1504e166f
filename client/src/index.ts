/**
 * The Exchange Gateway client: every operation of the spec, typed; signing in with a ledger key or an
 * Ethereum-style wallet; a session that stays fresh; iterators over lists; exact fee arithmetic.
 * @see ../../spec/openapi.yaml
 */
export type { components, operations, paths } from '@gateway/generated';
export { type Base58, type ChainId, MAX_LIFETIME_SECONDS } from '@gateway/ledger';
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
  type ErrorBody,
  type ErrorCode,
  errorCatalogue,
  errorCodeOf,
  GatewayError,
  isExpiredToken,
  SessionEndedError,
} from './errors.js';
export type { EventsOptions, GatewayEvent } from './events.js';
export { type Amount, type AmountCheck, checkAmount, receivedAmount } from './fees.js';
export {
  type ApiClient,
  createGatewayClient,
  type GatewayClient,
  type GatewayClientOptions,
  type LoginOptions,
  type RetryOptions,
  type TradeQuery,
} from './gateway.js';
export { cursorItems, offsetItems } from './paginate.js';
export {
  type KeyValueStorage,
  memoryStorage,
  type SessionTokens,
  type TokenStorage,
  webStorage,
} from './session.js';

import type { paths } from '@gateway/generated';
import createClient, { type ClientOptions } from 'openapi-fetch';

/** The low-level typed client alone (no session), for the public operations or custom auth. */
export function createApiClient(options: ClientOptions) {
  return createClient<paths>(options);
}
