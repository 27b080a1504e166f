/** Public reads come from an in-memory snapshot of the catalogue, reloaded after every catalogue load. */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCatalogue } from '../../src/domain/catalogue.js';
import { type CatalogueSnapshot, catalogueAnswer } from '../../src/domain/catalogue-cache.js';
import { demoFiles } from '../../src/operator/commands.js';
import { applyCatalogue } from '../../src/store/catalogue.js';
import { signIn, type TestApp, testApp } from '../support/app.js';
import { DATABASES } from '../support/databases.js';
import { DEMO_SEED, ledgerUser } from '../support/signers.js';

describe.each(DATABASES)('the catalogue snapshot on %s', (kind) => {
  let t: TestApp;
  let clock = Date.now();
  beforeAll(async () => {
    t = await testApp(kind, { demo: true, now: () => clock });
  });
  afterAll(() => t.close());

  it('shows a catalogue load within a second, at every instance', async () => {
    const other = await t.another();
    const apy = async (app = t.app) => (await app.inject({ url: '/v1/apy/staking/WAVES' })).json().apy;
    // Terms and lists are serialized once per snapshot: a new snapshot must bring new answers.
    const status = async () => (await t.app.inject({ url: '/v1/deposit/currencies/USDT/ETH' })).json().status;
    const listed = async () =>
      (await t.app.inject({ url: '/v1/deposit/currencies?limit=100' }))
        .json()
        .items.find((item: { id: string; platform_id: string }) => item.id === 'USDT' && item.platform_id === 'ETH')
        .status;
    expect([await apy(), await apy(other), await status(), await listed()]).toEqual([6.22, 6.22, 'active', 'active']);
    const me = ledgerUser(DEMO_SEED);
    const { access_token } = await signIn(t.app, me);
    const changed = readFileSync(demoFiles.catalogue, 'utf8')
      .replace("currency: WAVES, apy: '6.22'", "currency: WAVES, apy: '7.5'")
      .replace(
        "deposit: { status: active, min: '10', max: '1000000', fee_flat: '0', fee_rate: '0' }\n        withdrawal: { status: active, min: '20'",
        "deposit: { status: inactive, min: '10', max: '1000000', fee_flat: '0', fee_rate: '0' }\n        withdrawal: { status: active, min: '20'",
      );
    expect(changed).toContain("apy: '7.5'");
    expect(changed).toContain("deposit: { status: inactive, min: '10'");
    await applyCatalogue(t.store.db, parseCatalogue(changed));
    clock += 1001;
    expect([await apy(), await apy(other), await status(), await listed()]).toEqual([7.5, 7.5, 'inactive', 'inactive']);
    // A currency made inactive gives no more addresses.
    const deposit = await t.app.inject({
      url: '/v1/deposit/addresses/USDT/ETH',
      headers: { authorization: `Bearer ${access_token}` },
    });
    expect(deposit.statusCode).toBe(403);
  });
});

describe('answers kept per snapshot', () => {
  it('are bounded in text as well as in number: past the bound, an answer is built for each request', () => {
    const snapshot = {} as CatalogueSnapshot;
    let builds = 0;
    const large = () => {
      builds++;
      return 'x'.repeat(5 * 1024 * 1024);
    };
    catalogueAnswer(snapshot, 'first', large);
    catalogueAnswer(snapshot, 'first', large);
    expect(builds).toBe(1);
    // Another 5 MiB would pass the 8 MiB kept for a snapshot: served, not kept.
    catalogueAnswer(snapshot, 'second', large);
    catalogueAnswer(snapshot, 'second', large);
    expect(builds).toBe(3);
  });
});
