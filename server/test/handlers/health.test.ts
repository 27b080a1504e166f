/** Liveness, readiness, metrics, security headers and the served spec. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, specification } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import { openStore } from '../../src/store/store.js';
import { passwordFields, postToken, signIn, type TestApp, testApp } from '../support/app.js';
import { stoppedPostgresUrl } from '../support/databases.js';
import { DEMO_SEED, ledgerUser } from '../support/signers.js';

describe('operator endpoints', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp('sqlite', { demo: true });
  });
  afterAll(() => t.close());

  it('liveness and readiness answer 200 with the database up', async () => {
    expect((await t.app.inject({ url: '/health/live' })).json()).toEqual({ status: 'ok' });
    expect((await t.app.inject({ url: '/health/ready' })).json()).toEqual({
      status: 'ok',
      checks: { database: 'ok', storage: 'ok' },
    });
  });

  it('readiness answers 503 when the database does not, while liveness still answers', async () => {
    const down = openStore(await stoppedPostgresUrl());
    const app = await buildApp(testConfig({ dataDir: t.config.dataDir }), { store: { ...t.store, ping: down.ping } });
    try {
      const ready = await app.inject({ url: '/health/ready' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json().errors[0].code).toBe(11200);
      expect((await app.inject({ url: '/health/live' })).statusCode).toBe(200);
    } finally {
      await app.close();
      await down.close();
    }
  });

  it('metrics count requests by operation and status, and token grants and refusals by reason', async () => {
    const me = ledgerUser(DEMO_SEED);
    await signIn(t.app, me);
    await postToken(t.app, passwordFields(me, me.password(1, { clientId: 'x' })));
    // Refusals before the token rules run are counted too: validation, an unknown grant, a content type.
    await postToken(t.app, { grant_type: 'password' });
    await postToken(t.app, { grant_type: 'magic' });
    await t.app.inject({
      method: 'POST',
      url: '/v1/oauth2/token',
      headers: { 'content-type': 'text/plain' },
      payload: 'x',
    });
    await t.app.inject({ url: '/v1/platforms/ETH' });
    await t.app.inject({ url: '/v1/platforms/SOL' });
    // Labels stay bounded: a path with no route is `unmatched`, a route of no operation is its route.
    await t.app.inject({ url: '/v1/nowhere/at/all' });
    await t.app.inject({ url: '/openapi.json' });
    const response = await t.app.inject({ url: '/metrics' });
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    const text = response.body;
    expect(text).toMatch(/gateway_http_requests_total\{operation="getPlatform",status="200"\} 1/);
    expect(text).toMatch(/gateway_http_requests_total\{operation="getPlatform",status="404"\} 1/);
    expect(text).toMatch(/gateway_http_requests_total\{operation="unmatched",status="404"\} 1/);
    expect(text).toMatch(/gateway_http_requests_total\{operation="\/openapi\.json",status="200"\} 1/);
    expect(text).not.toContain('/v1/nowhere');
    // The request's duration is observed once under its labels, in the histogram's buckets (which bucket it
    // falls in is the machine's speed, not the gateway's: not asserted).
    expect(text).toMatch(
      /gateway_http_request_duration_seconds_bucket\{le="0\.1",operation="getPlatform",status="200"\} [01]\n/,
    );
    expect(text).toMatch(
      /gateway_http_request_duration_seconds_bucket\{le="\+Inf",operation="getPlatform",status="200"\} 1\n/,
    );
    expect(text).toMatch(/gateway_http_request_duration_seconds_count\{operation="getPlatform",status="200"\} 1\n/);
    expect(text).toMatch(/gateway_token_grants_total\{grant="password"\} 1/);
    expect(text).toMatch(/gateway_token_refusals_total\{reason="expiry_passed"\} 1/);
    expect(text).toMatch(/gateway_token_refusals_total\{reason="missing_parameter"\} 1/);
    expect(text).toMatch(/gateway_token_refusals_total\{reason="unsupported_grant_type"\} 1/);
    expect(text).toMatch(/gateway_token_refusals_total\{reason="unsupported_media_type"\} 1/);
    // Other operations' refusals are not token refusals.
    expect(text).not.toMatch(/gateway_token_refusals_total\{reason="platform_not_found"\}/);
    expect(text).toMatch(/gateway_db_pool_connections\{state="total"\} 1/);
    expect(text).toMatch(/gateway_process_resident_memory_bytes/);
  });

  it('API answers carry security headers; the spec is served as JSON', async () => {
    const response = await t.app.inject({ url: '/openapi.json' });
    expect(response.json()).toEqual(specification);
    for (const url of ['/v1/platforms', '/v1/nowhere']) {
      const headers = (await t.app.inject({ url })).headers;
      expect(headers['x-content-type-options']).toBe('nosniff');
      expect(headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(headers['referrer-policy']).toBe('no-referrer');
    }
  });

  it('the API reference page and its files carry security headers, with a policy of their own', async () => {
    const page = await t.app.inject({ url: '/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    for (const url of [
      '/docs',
      '/docs/',
      '/docs/json',
      '/docs/static/swagger-ui.css',
      '/docs/nothing-here',
      '/docs?x=1',
    ]) {
      const headers = (await t.app.inject({ url })).headers;
      expect(headers['x-content-type-options'], url).toBe('nosniff');
      expect(headers['x-frame-options'], url).toBe('DENY');
      expect(headers['referrer-policy'], url).toBe('no-referrer');
      // Its own scripts, styles and spec only; no inline script, no other site, never framed.
      expect(headers['content-security-policy'], url).toMatch(/^default-src 'none'; script-src 'self';/);
      expect(headers['content-security-policy'], url).toMatch(/frame-ancestors 'none'/);
      expect(headers['content-security-policy'], url).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
    }
    expect((await t.app.inject({ url: '/docs/nothing-here' })).statusCode).toBe(404);
  });

  it("the reference's files come whole or not modified: a range or a precondition is no server error", async () => {
    const url = '/docs/static/swagger-ui.css';
    const whole = await t.app.inject({ url });
    expect(whole.statusCode).toBe(200);
    for (const headers of [
      { range: 'bytes=999999999-' },
      { range: 'bytes=5-1' },
      { range: 'bytes=0-9' },
      { 'if-match': '"x"' },
      { 'if-unmodified-since': 'Thu, 01 Jan 1970 00:00:00 GMT' },
      { range: 'bytes=0-9', 'if-range': '"x"' },
    ]) {
      const answer = await t.app.inject({ url, headers });
      expect(answer.statusCode, JSON.stringify(headers)).toBe(200);
      expect(answer.body, JSON.stringify(headers)).toBe(whole.body);
    }
    const etag = whole.headers.etag as string;
    expect((await t.app.inject({ url, headers: { 'if-none-match': etag } })).statusCode).toBe(304);
  });

  it("the spec's and the reference's refusals are in the spec's error body", async () => {
    for (const [url, headers, status, code] of [
      ['/openapi.json', { accept: 'text/html' }, 406, 10900],
      ['/docs/nothing-here', {}, 404, 10400],
    ] as const) {
      const answer = await t.app.inject({ url, headers });
      expect(answer.statusCode, url).toBe(status);
      expect(answer.json(), url).toEqual({ errors: [expect.objectContaining({ code })] });
    }
  });

  it("the reference page lists this server first by a relative URL, never the request's Host", async () => {
    const document = await t.app.inject({ url: '/docs/json', headers: { host: 'evil.example:45678' } });
    expect(document.statusCode).toBe(200);
    const text = document.body;
    expect(text).not.toMatch(/evil\.example/);
    const servers = document.json().servers.map((s: { url: string }) => s.url);
    expect(servers[0]).toBe('/');
    expect(servers).toContain('http://127.0.0.1:4010');
    // The spec itself is served as it is.
    expect((await t.app.inject({ url: '/openapi.json' })).json().servers[0].url).toBe('http://127.0.0.1:3000');
  });

  it('answers in what the operation produces: metrics as text, the rest as JSON', async () => {
    expect((await t.app.inject({ url: '/metrics', headers: { accept: 'text/plain' } })).statusCode).toBe(200);
    const refused = await t.app.inject({ url: '/metrics', headers: { accept: 'application/json' } });
    expect(refused.statusCode).toBe(406);
    // The refusal names what the operation serves, not the JSON of the other operations.
    expect(refused.json().errors[0]).toMatchObject({ code: 10900, message: 'Only text/plain can be served' });
    const events = await t.app.inject({ url: '/v1/events', headers: { accept: 'application/json' } });
    expect(events.json().errors[0]).toMatchObject({ code: 10900, message: 'Only text/event-stream can be served' });
    expect((await t.app.inject({ url: '/v1/platforms', headers: { accept: 'application/*' } })).statusCode).toBe(200);
    const json = await t.app.inject({ url: '/v1/platforms', headers: { accept: 'text/*' } });
    expect(json.statusCode).toBe(406);
    expect(json.json().errors[0].message).toBe('Only application/json can be served');
  });
});
