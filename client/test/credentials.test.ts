/**
 * The client sends credentials in the body only: the token endpoint's query parameters are deprecated in the
 * spec (a query string ends up in logs), so no request of the client carries one, whichever way it reaches
 * the endpoint (login, a refresh before the expiry or after a 401, the plain call, logout).
 */
import { operationMeta } from '@gateway/generated';
import { describe, expect, it } from 'vitest';
import { signerFromSeed } from '../src/auth/ledger.js';
import { createGatewayClient } from '../src/gateway.js';
import { errorBody, fakeFetch, json, type Recorded } from './fake-server.js';

const signer = signerFromSeed(
  'uncle push human bus echo drastic garden joke sand warfare sentence fossil title color combine',
);
const NOW = 1_800_000_000_000;
const FORM = 'application/x-www-form-urlencoded';
/** The parameters the spec deprecates in the token endpoint's query string. */
const deprecated = operationMeta.createToken.deprecatedParameters.map((p) => p.name);

/** A gateway that issues access-1, access-2, …; its movements take only the newest access token. */
function gateway() {
  let issued = 0;
  return fakeFetch((r) => {
    if (r.url.pathname === '/v1/oauth2/token') {
      issued++;
      return json(200, {
        access_token: `access-${issued}`,
        token_type: 'bearer',
        expires_in: NOW / 1000 + 3600,
        refresh_token: `refresh-${issued}`,
      });
    }
    if (r.url.pathname === '/v1/oauth2/revoke') return json(200, {});
    if (r.url.pathname === '/v1/movements') {
      return r.headers.get('authorization') === `Bearer access-${issued}`
        ? json(200, { type: 'list', page_info: { has_next_page: false, last_cursor: null }, items: [] })
        : json(401, errorBody(10000));
    }
    return json(404, errorBody(10400));
  });
}

/** The requests that carry credentials: the token and revocation endpoints'. */
const credentialed = (requests: Recorded[]) =>
  requests.filter((r) => r.url.pathname === '/v1/oauth2/token' || r.url.pathname === '/v1/oauth2/revoke');

describe('credentials', () => {
  it('are the token parameters the spec deprecates in the query string', () => {
    expect(deprecated).toEqual(['grant_type', 'scope', 'username', 'password', 'client_id', 'refresh_token']);
    expect(operationMeta.createToken.deprecatedParameters.every((p) => p.in === 'query')).toBe(true);
  });

  it('travel in the form body of every token request, never in a query string', async () => {
    let clock = NOW;
    const { fetch, requests } = gateway();
    const client = createGatewayClient({
      baseUrl: 'https://gw.test',
      chainId: 'W',
      clientId: 'waves.exchange',
      fetch,
      now: () => clock,
    });
    await client.login(signer);
    // A refresh before the expiry, then one after a 401 (another sign-in made the session's token stale).
    clock = NOW + (3600 - 30) * 1000;
    expect((await client.api.GET('/v1/movements')).response.status).toBe(200);
    await client.calls.createToken({
      grant_type: 'password',
      scope: 'general',
      username: signer.publicKey,
      password: '1800003600:sig',
      client_id: 'waves.exchange',
    });
    expect((await client.api.GET('/v1/movements')).response.status).toBe(200);
    await client.logout();

    const sent = credentialed(requests);
    const grants = sent.map((r) => new URLSearchParams(r.body).get('grant_type') ?? r.url.pathname);
    expect(grants).toEqual(['password', 'refresh_token', 'password', 'refresh_token', '/v1/oauth2/revoke']);
    for (const request of sent) {
      expect(request.url.search, `${request.url}`).toBe('');
      expect(request.method).toBe('POST');
      expect(request.headers.get('content-type')).toBe(FORM);
    }
    const tokenRequests = sent.filter((r) => r.url.pathname === '/v1/oauth2/token');
    for (const request of tokenRequests) {
      const body = new URLSearchParams(request.body);
      const credential = body.get('grant_type') === 'password' ? 'password' : 'refresh_token';
      expect(body.get(credential), request.body).toMatch(/\S/);
      for (const name of deprecated) expect(request.url.searchParams.has(name)).toBe(false);
    }
  });
});
