/** The password grant against a running gateway, as deployed clients send it (a form body). */
import { type LedgerSigner, passwordFor, signerFromSeed } from '@gateway/client';

/** The demo account's seed (the ledger reference library's public test vector). */
export const DEMO_SEED =
  'uncle push human bus echo drastic garden joke sand warfare sentence fossil title color combine';

export interface PasswordGrant {
  response: Response;
  /** The signed password sent. */
  password: string;
}

/**
 * `POST /v1/oauth2/token` with the password grant of `signer` (the demo account by default), signed for an
 * expiry `expiresIn` seconds from now; `headers` are added to the request.
 */
export async function passwordGrant(
  url: string,
  options: { signer?: LedgerSigner; expiresIn?: number; headers?: Record<string, string> } = {},
): Promise<PasswordGrant> {
  const signer = options.signer ?? signerFromSeed(DEMO_SEED);
  const expiry = Math.floor(Date.now() / 1000) + (options.expiresIn ?? 600);
  const password = await passwordFor(signer, 'W', 'waves.exchange', expiry);
  const response = await fetch(`${url}/v1/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...options.headers },
    body: new URLSearchParams({
      grant_type: 'password',
      scope: 'general',
      username: signer.publicKey,
      password,
      client_id: 'waves.exchange',
    }),
  });
  return { response, password };
}
