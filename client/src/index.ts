/**
 * Typed client of the Exchange Gateway API. Every operation of the spec is callable through
 * openapi-fetch with its parameters, bodies, replies and errors typed from the generated `paths`.
 * @see ../../spec/openapi.yaml
 */
import type { paths } from '@gateway/generated';
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';

export type { components, operations, paths } from '@gateway/generated';
export {
  addressOfEthAccount,
  addressOfPublicKey,
  type ChainId,
  type LedgerSigner,
  signerFromPrivateKey,
  signerFromSeed,
} from './auth/ledger.js';
export {
  MAX_LIFETIME_SECONDS,
  type MessageSigner,
  passwordFor,
  type Signer,
  type TypedDataSigner,
  typedDataFor,
  usernameOf,
} from './auth/password.js';

/** The low-level typed client: one method per HTTP verb, paths and bodies checked against the spec. */
export type ApiClient = Client<paths>;

/** Creates the low-level typed client for a gateway at `baseUrl` (e.g. `https://api.example.com`). */
export function createApiClient(options: ClientOptions): ApiClient {
  return createClient<paths>(options);
}
