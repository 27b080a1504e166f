/** The signed-in account's movements, and nobody else's. */
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { signedInAccounts } from '../support/accounts.js';
import { DATABASES } from '../support/databases.js';
import { me } from '../support/signers.js';

describe.each(DATABASES)('movements on %s', (kind) => {
  const f = signedInAccounts(kind);
  const get = (url: string, authorization: string, app?: FastifyInstance) => f.get(url, authorization, app);

  it("lists only the account's movements, and another account's movement is a 404 like a missing one", async () => {
    const list = (await get('/v1/movements', f.mine)).json();
    expect(list.items.length).toBeGreaterThan(10);
    const ownIds = new Set(list.items.map((m: { id: string }) => m.id));
    const foreign = await f.t.store.db
      .selectFrom('movements')
      .select('id')
      .where('account', '!=', me.address)
      .executeTakeFirstOrThrow();
    expect(ownIds.has(foreign.id)).toBe(false);
    const own = list.items[0];
    const one = await get(`/v1/movements/${own.id}`, f.mine);
    expect(one.json()).toEqual(own);
    const notMine = await get(`/v1/movements/${foreign.id}`, f.mine);
    const missing = await get('/v1/movements/no-such-movement', f.mine);
    expect([notMine.statusCode, missing.statusCode]).toEqual([404, 404]);
    expect(notMine.body).toBe(missing.body);
  });

  it('writes a large page as the same bytes, its length given, and HEAD gives the same headers without them', async () => {
    const page = await get('/v1/movements?limit=100', f.mine);
    // Large enough for the page to be written as bytes (routes.ts, answerBytes: from 16 K UTF-16 units).
    expect(page.body.length).toBeGreaterThanOrEqual(16 * 1024);
    expect(page.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Number(page.headers['content-length'])).toBe(page.rawPayload.length);
    const head = await f.t.app.inject({
      method: 'HEAD',
      url: '/v1/movements?limit=100',
      headers: { authorization: f.mine },
    });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-length']).toBe(page.headers['content-length']);
    expect(head.headers['content-type']).toBe(page.headers['content-type']);
    expect(head.rawPayload.length).toBe(0);
  });
});
