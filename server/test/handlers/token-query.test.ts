/**
 * Credentials in the token endpoint's query string: deployed clients send them, so they stay accepted, but the
 * spec marks them deprecated (send the form body) and every request that sends one is counted in
 * `gateway_deprecated_parameter_requests_total`, whether they are read or a body wins, answered or refused.
 */
import { operationMeta } from '@gateway/generated';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { specification } from '../../src/app.js';
import { passwordFields, postToken, signIn, type TestApp, testApp } from '../support/app.js';
import { DEMO_SEED, ledgerUser } from '../support/signers.js';

const me = ledgerUser(DEMO_SEED);
const TOKEN_FIELDS = ['grant_type', 'scope', 'username', 'password', 'client_id', 'refresh_token'];

/** A token request with `fields` in the query string and an empty JSON body, as deployed clients send it. */
function queryToken(t: TestApp, fields: Record<string, string>, payload?: string) {
  return t.app.inject({
    method: 'POST',
    url: `/v1/oauth2/token?${new URLSearchParams(fields)}`,
    headers: { 'content-type': 'application/json' },
    ...(payload === undefined ? {} : { payload }),
  });
}

/** The count of requests of `operation` that sent a deprecated parameter, from the metrics. */
async function counted(t: TestApp, operation = 'createToken'): Promise<number> {
  const text = (await t.app.inject({ url: '/metrics' })).body;
  const line = new RegExp(`^gateway_deprecated_parameter_requests_total\\{operation="${operation}"\\} (\\d+)$`, 'm');
  return Number(line.exec(text)?.[1] ?? 0);
}

describe('the token parameters in the query string, in the spec', () => {
  it('are each deprecated, saying to send the form body', () => {
    const doc = specification as {
      paths: Record<
        string,
        { post: { parameters: { name: string; in: string; deprecated?: boolean; description: string }[] } }
      >;
    };
    const parameters = doc.paths['/v1/oauth2/token']?.post.parameters ?? [];
    expect(parameters.map((p) => [p.in, p.name])).toEqual(TOKEN_FIELDS.map((name) => ['query', name]));
    for (const p of parameters) {
      expect(p.deprecated, p.name).toBe(true);
      expect(p.description, p.name).toMatch(/^Deprecated: send (the parameters|it) in the form body instead/);
    }
    expect(operationMeta.createToken.deprecatedParameters).toEqual(TOKEN_FIELDS.map((name) => ({ in: 'query', name })));
  });

  it('are the only deprecated parameters: no other operation counts its requests', () => {
    const others = Object.entries(operationMeta).filter(
      ([id, meta]) => id !== 'createToken' && meta.deprecatedParameters.length > 0,
    );
    expect(others).toEqual([]);
  });
});

describe('the token parameters in the query string, on the server', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp('sqlite', { demo: true });
  });
  afterAll(() => t.close());

  it('a password grant and a refresh grant in the query string are answered, and each counted once', async () => {
    const before = await counted(t);
    const password = await queryToken(t, passwordFields(me));
    expect(password.statusCode, password.body).toBe(200);
    expect(await counted(t)).toBe(before + 1);
    const refresh = await queryToken(t, {
      grant_type: 'refresh_token',
      scope: 'general',
      client_id: 'waves.exchange',
      refresh_token: password.json().refresh_token,
    });
    expect(refresh.statusCode, refresh.body).toBe(200);
    expect(await counted(t)).toBe(before + 2);
  });

  it('the form body is not counted', async () => {
    const before = await counted(t);
    const { refresh_token } = await signIn(t.app, me);
    const refreshed = await postToken(t.app, {
      grant_type: 'refresh_token',
      scope: 'general',
      client_id: 'waves.exchange',
      refresh_token,
    });
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    expect(await counted(t)).toBe(before);
  });

  it('a request is counted when a body wins over its query string, and when it is refused, with the error body', async () => {
    const before = await counted(t);
    // The body is a complete request: the query string's password is not read, but it was sent.
    const won = await t.app.inject({
      method: 'POST',
      url: `/v1/oauth2/token?${new URLSearchParams({ password: 'sent-in-the-url' })}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(passwordFields(me)).toString(),
    });
    expect(won.statusCode, won.body).toBe(200);
    // Refused: a grant type the spec does not know (11300), a malformed password (11304).
    const unknownGrant = await queryToken(t, { ...passwordFields(me), grant_type: 'magic' });
    expect(unknownGrant.statusCode).toBe(400);
    expect(unknownGrant.json()).toEqual({ errors: [{ code: 11300, message: expect.any(String) }] });
    const badPassword = await queryToken(t, passwordFields(me, 'not-a-password'));
    expect(badPassword.statusCode).toBe(400);
    expect(badPassword.json()).toEqual({ errors: [{ code: 11304, message: expect.any(String) }] });
    expect(await counted(t)).toBe(before + 3);
  });

  it('an empty query parameter is sent all the same, and counted', async () => {
    const before = await counted(t);
    const response = await t.app.inject({ method: 'POST', url: '/v1/oauth2/token?refresh_token=' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      errors: [{ code: 10201, message: expect.any(String), details: { parameter: 'refresh_token' } }],
    });
    expect(await counted(t)).toBe(before + 1);
  });
});

describe('the token parameters in the query string, rate limited', () => {
  it('a request refused for the rate limit (429) is counted too', async () => {
    const t = await testApp('sqlite', { config: { tokenRateLimit: 2 } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await queryToken(t, passwordFields(me, 'bad'))).statusCode);
      expect(statuses).toEqual([400, 400, 429, 429]);
      expect(await counted(t)).toBe(4);
    } finally {
      await t.close();
    }
  });
});
