/** Signing in to a running gateway with a ledger seed, over plain HTTP. */
import { type LedgerSigner, passwordFor, signerFromSeed } from '@gateway/client';

/** The demo account of the README (the ledger reference library's public known-answer seed). */
export const DEMO_SEED =
  'uncle push human bus echo drastic garden joke sand warfare sentence fossil title color combine';
export const DEMO_ADDRESS = '3P9KR33QyXwfTXv8kKtNGZYtgKk3RXSUk36';
export const CLIENT_ID = 'waves.exchange';
export const CHAIN_ID = 'W';

export interface TokenPair {
  access_token: string;
  token_type: string;
  expires_in: number;
  refresh_token: string;
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);

export async function passwordGrant(signer: LedgerSigner, expiry = nowSeconds() + 3600, clientId = CLIENT_ID) {
  return {
    grant_type: 'password',
    scope: 'general',
    username: signer.publicKey,
    password: await passwordFor(signer, CHAIN_ID, clientId, expiry),
    client_id: clientId,
  };
}

export async function postToken(baseUrl: string, fields: Record<string, string>): Promise<Response> {
  return fetch(`${baseUrl}/v1/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(fields),
    signal: AbortSignal.timeout(5000),
  });
}

/**
 * An expiry an hour ahead, later than the one it gave before: a test that revokes a sign-in ends the
 * account's passwords expiring up to its own, and may sign in again within the same second.
 */
let lastExpiry = 0;
const laterExpiry = () => {
  lastExpiry = Math.max(nowSeconds() + 3600, lastExpiry + 1);
  return lastExpiry;
};

export async function signIn(baseUrl: string, signer: LedgerSigner = signerFromSeed(DEMO_SEED), expiry?: number) {
  const response = await postToken(baseUrl, await passwordGrant(signer, expiry ?? laterExpiry()));
  if (response.status !== 200) throw new Error(`sign-in: ${response.status} ${await response.text()}`);
  return (await response.json()) as TokenPair;
}
