import { form, prefer, type Scenario } from '../src/scenario.js';

const path = '/v1/oauth2/token';

export const tokenScenarios: Scenario[] = [
  {
    name: 'password grant in a form body issues a token pair',
    operationId: 'createToken',
    request: async (ctx) => ({ method: 'POST', path, body: form(await ctx.passwordGrant()) }),
    expect: { status: 200, headers: { 'cache-control': /no-store/ } },
  },
  {
    name: 'password grant in the query string with an empty JSON body (deployed clients) issues a token pair',
    operationId: 'createToken',
    request: async (ctx) => ({
      method: 'POST',
      path,
      query: await ctx.passwordGrant(),
      body: { contentType: 'application/json', text: '' },
    }),
    expect: { status: 200 },
  },
  {
    name: 'refresh_token grant reissues a token pair',
    operationId: 'createToken',
    request: async (ctx) => ({
      method: 'POST',
      path,
      body: form({
        grant_type: 'refresh_token',
        scope: 'general',
        client_id: 'waves.exchange',
        refresh_token: await ctx.freshRefreshToken(),
      }),
    }),
    expect: { status: 200 },
  },
  {
    name: 'the password of a revoked sign-in, replayed as it is, is refused (no replay after sign-out)',
    operationId: 'createToken',
    request: async (ctx) => ({
      method: 'POST',
      path,
      headers: prefer(400),
      body: form(await ctx.signedOutPasswordGrant()),
    }),
    expect: { status: 400, code: 11309 },
  },
  {
    name: 'a form body without grant_type is refused',
    operationId: 'createToken',
    request: { method: 'POST', path, body: form({ scope: 'general', client_id: 'waves.exchange' }) },
    expect: { status: 400, code: 10200 },
  },
  {
    name: 'an unknown grant_type is refused',
    operationId: 'createToken',
    request: {
      method: 'POST',
      path,
      body: form({ grant_type: 'client_credentials', scope: 'general', client_id: 'waves.exchange' }),
    },
    expect: { status: 400, code: 11300 },
  },
  {
    name: 'a refresh token that was never issued is refused',
    operationId: 'createToken',
    request: {
      method: 'POST',
      path,
      headers: { Prefer: 'code=400' },
      body: form({
        grant_type: 'refresh_token',
        scope: 'general',
        client_id: 'waves.exchange',
        refresh_token: 'rt_NeverIssuedNeverIssuedNeverIssuedNeverIss',
      }),
    },
    expect: { status: 400, code: 11308 },
  },
  {
    name: 'a text/plain body is refused as an unsupported media type',
    operationId: 'createToken',
    request: { method: 'POST', path, body: { contentType: 'text/plain', text: 'grant_type=password' } },
    expect: { status: 415, code: 10800 },
    only: 'server',
  },
  {
    name: 'a body over 16 KiB is refused',
    operationId: 'createToken',
    request: { method: 'POST', path, body: form({ grant_type: 'password', padding: 'x'.repeat(20_000) }) },
    expect: { status: 413, code: 11000 },
    only: 'server',
  },
  {
    name: 'GET on the token endpoint is not allowed',
    operationId: 'createToken',
    request: { method: 'GET', path },
    expect: { status: 405, code: 10700 },
    only: 'server',
  },
  {
    name: 'revoking a refresh token answers 200 with an empty body',
    operationId: 'revokeToken',
    request: async (ctx) => ({
      method: 'POST',
      path: '/v1/oauth2/revoke',
      body: form({ token: await ctx.freshRefreshToken(), token_type_hint: 'refresh_token' }),
    }),
    expect: { status: 200, headers: { 'cache-control': /no-store/ } },
  },
  {
    name: 'revoking a token the server never issued answers 200 too (RFC 7009)',
    operationId: 'revokeToken',
    request: { method: 'POST', path: '/v1/oauth2/revoke', body: form({ token: 'never-issued' }) },
    expect: { status: 200 },
  },
  {
    name: 'a revocation without a token is refused',
    operationId: 'revokeToken',
    request: { method: 'POST', path: '/v1/oauth2/revoke', body: form({ token_type_hint: 'refresh_token' }) },
    expect: { status: 400, code: 10200 },
  },
];
