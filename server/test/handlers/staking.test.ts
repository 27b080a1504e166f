/** Staking yields (public): a token's yield from the catalogue, 404 for one without, 400 for no ticker at all. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeOf, type TestApp, testApp } from '../support/app.js';
import { DATABASES } from '../support/databases.js';

describe.each(DATABASES)('staking yields on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp(kind, { demo: true });
  });
  afterAll(() => t.close());
  const get = (url: string) => t.app.inject({ url });

  it('serves each yield of the catalogue as a number, publicly (no Catalogue-Age while the database answers)', async () => {
    const yields = await t.store.db.selectFrom('staking_yields').select(['currency_id', 'apy']).execute();
    expect(yields.length).toBeGreaterThan(0);
    for (const { currency_id, apy } of yields) {
      const response = await get(`/v1/apy/staking/${currency_id}`);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({ type: 'apy', apy: Number(apy) });
      expect(response.headers['catalogue-age']).toBeUndefined();
    }
  });

  it('a currency of the catalogue without a yield, or unknown, is 404 10405 naming it', async () => {
    const staked = new Set(
      (await t.store.db.selectFrom('staking_yields').select('currency_id').execute()).map((s) => s.currency_id),
    );
    const unstaked = (await t.store.db.selectFrom('currencies').select('id').execute()).find((c) => !staked.has(c.id));
    expect(unstaked, 'the demo catalogue has a currency without a yield').toBeDefined();
    for (const currency of [unstaked?.id, 'NOPE']) {
      const response = await get(`/v1/apy/staking/${currency}`);
      expect(response.statusCode).toBe(404);
      expect(codeOf(response)).toBe(10405);
      expect(response.json().errors[0].details).toEqual({ currency });
    }
  });

  it('a ticker outside the spec’s pattern is 400 10201 naming the parameter', async () => {
    const response = await get(`/v1/apy/staking/${'X'.repeat(200)}`);
    expect(response.statusCode).toBe(400);
    expect(codeOf(response)).toBe(10201);
    expect(response.json().errors[0].details).toMatchObject({ parameter: 'currency_id' });
  });
});
