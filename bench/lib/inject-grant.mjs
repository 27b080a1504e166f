/**
 * An access token from an app in this process (Fastify's `inject`): the password grant a deployed client sends
 * for `signer` on chain W as waves.exchange, valid `lifetimeSeconds` from now.
 */
import { passwordFor } from '@gateway/client';

export async function injectedAccessToken(app, signer, lifetimeSeconds) {
  const expiry = Math.floor(Date.now() / 1000) + lifetimeSeconds;
  const grant = await app.inject({
    method: 'POST',
    url: '/v1/oauth2/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      grant_type: 'password',
      scope: 'general',
      client_id: 'waves.exchange',
      username: signer.publicKey,
      password: await passwordFor(signer, 'W', 'waves.exchange', expiry),
    }).toString(),
  });
  if (grant.statusCode !== 200) throw new Error(`the grant answered ${grant.statusCode}: ${grant.body}`);
  return grant.json().access_token;
}
