/** Deposit addresses, withdrawal proxy addresses and movements of the signed-in account. */
import { HDKey } from '@scure/bip32';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { depositAddressFor, isValidDestination, proxyAddressFor } from '../../src/domain/addresses.js';
import { signIn, type TestApp, testApp } from '../support/app.js';
import { DATABASES } from '../support/databases.js';
import { reference } from '../support/oracle.js';
import { DEMO_SEED, ethUser, ledgerUser } from '../support/signers.js';

const me = ledgerUser(DEMO_SEED);
const someoneElse = ledgerUser(DEMO_SEED, 'W', 7);
const codeOf = (r: { json(): unknown }) => (r.json() as { errors: { code: number }[] }).errors[0]?.code;

describe.each(DATABASES)('account operations on %s', (kind) => {
  let t: TestApp;
  let mine: string;
  let theirs: string;
  beforeAll(async () => {
    t = await testApp(kind, { demo: true });
    mine = `Bearer ${(await signIn(t.app, me)).access_token}`;
    theirs = `Bearer ${(await signIn(t.app, someoneElse)).access_token}`;
  });
  afterAll(() => t.close());

  const get = (url: string, authorization: string, app = t.app) => app.inject({ url, headers: { authorization } });

  it('gives a deposit address derived from the platform key, the same every time and after a restart', async () => {
    const first = await get('/v1/deposit/addresses/USDT/ETH', mine);
    expect(first.statusCode, first.body).toBe(200);
    const body = first.json();
    expect(body.type).toBe('deposit_addresses');
    expect(body.currency).toMatchObject({ type: 'deposit_currency', id: 'USDT', platform_id: 'ETH' });
    const [address] = body.deposit_addresses;
    expect(address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    // Derived, not invented: child 0 of the platform's extended public key, EIP-55.
    const platform = await t.store.db
      .selectFrom('platforms')
      .selectAll()
      .where('id', '=', 'ETH')
      .executeTakeFirstOrThrow();
    const row = await t.store.db
      .selectFrom('deposit_addresses')
      .selectAll()
      .where('address', '=', address)
      .executeTakeFirstOrThrow();
    expect(depositAddressFor(platform, row.child_index)).toBe(address);
    expect(HDKey.fromExtendedKey(platform.xpub).deriveChild(row.child_index).publicKey).toBeDefined();
    // Another currency on the same platform shares the account's platform address.
    expect((await get('/v1/deposit/addresses/WAVES/ETH', mine)).json().deposit_addresses).toEqual([address]);
    const restarted = await t.another();
    expect((await get('/v1/deposit/addresses/USDT/ETH', mine, restarted)).json().deposit_addresses).toEqual([address]);
  });

  it('a bitcoin platform gives a bech32 P2WPKH address; the deprecated path uses the default platform', async () => {
    const response = await get('/v1/deposit/addresses/BTC', mine);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().deposit_addresses[0]).toMatch(/^bc1q[02-9ac-hj-np-z]{38}$/);
    expect(response.headers.deprecation).toMatch(/^@\d+$/);
    expect(response.headers.link).toBe('</v1/deposit/addresses/BTC/BTC>; rel="successor-version"');
  });

  it('concurrent first requests of many accounts, on two instances: one address each, never shared', async () => {
    const second = await t.another();
    const users = Array.from({ length: 12 }, (_, i) =>
      i % 3 === 0 ? ethUser('W') : ledgerUser(DEMO_SEED, 'W', 100 + i),
    );
    const tokens = await Promise.all(users.map(async (u) => `Bearer ${(await signIn(t.app, u)).access_token}`));
    const responses = await Promise.all(
      tokens.flatMap((token) =>
        [0, 1, 2].map((i) => get('/v1/deposit/addresses/USDT/BSC', token, i % 2 ? second : t.app)),
      ),
    );
    expect(responses.every((r) => r.statusCode === 200)).toBe(true);
    const perUser = tokens.map(
      (_, u) => new Set(responses.slice(u * 3, u * 3 + 3).map((r) => r.json().deposit_addresses[0])),
    );
    expect(perUser.every((set) => set.size === 1)).toBe(true);
    const addresses = perUser.map((set) => [...set][0]);
    expect(new Set(addresses).size).toBe(users.length);
  });

  it('refuses an inactive deposit with 403 and never gives an address', async () => {
    const response = await get('/v1/deposit/addresses/USDC/ETH', mine);
    expect(response.statusCode).toBe(403);
    expect(codeOf(response)).toBe(10101);
  });

  it.each([
    ['/v1/deposit/addresses/NOPE/ETH', 10401],
    ['/v1/deposit/addresses/USDT/SOL', 10402],
    ['/v1/deposit/addresses/BTC/ETH', 10403],
  ])('%s: 404 with code %i', async (url, code) => {
    const response = await get(url, mine);
    expect(response.statusCode).toBe(404);
    expect(codeOf(response)).toBe(code);
  });

  it('gives a withdrawal proxy address from the proxy seed, stable per route, one per route', async () => {
    const destination = '0x3f2b1c25A5f23b193560B97988ee98cBDb480730';
    const first = await get(`/v1/withdraw/addresses/USDT/${destination}/ETH`, mine);
    expect(first.statusCode, first.body).toBe(200);
    const body = first.json();
    expect(body).toMatchObject({ type: 'withdrawal_addresses', currency: { type: 'withdrawal_currency', id: 'USDT' } });
    const [proxy] = body.proxy_addresses;
    // The operator's signing service derives the same key: the ledger's own account numbering (seed nonce).
    const row = await t.store.db
      .selectFrom('withdrawal_addresses')
      .selectAll()
      .where('proxy_address', '=', proxy)
      .executeTakeFirstOrThrow();
    const secrets = JSON.parse((await import('node:fs')).readFileSync(`${t.config.dataDir}/secrets.json`, 'utf8'));
    expect(reference.address(reference.keyPair(reference.seedWithNonce(secrets.proxySeed, row.proxy_index)), 'W')).toBe(
      proxy,
    );
    expect(proxyAddressFor(secrets.proxySeed, row.proxy_index, 'W')).toBe(proxy);
    expect((await get(`/v1/withdraw/addresses/USDT/${destination}/ETH`, mine)).json().proxy_addresses).toEqual([proxy]);
    // The deprecated path (used by deployed clients) is the same route on the default platform.
    const deprecated = await get(`/v1/withdraw/addresses/USDT/${destination}`, mine);
    expect(deprecated.json().proxy_addresses).toEqual([proxy]);
    expect(deprecated.headers.link).toBe(`</v1/withdraw/addresses/USDT/${destination}/ETH>; rel="successor-version"`);
    const other = await get(`/v1/withdraw/addresses/USDT/${destination}/ETH`, theirs);
    expect(other.json().proxy_addresses[0]).not.toBe(proxy);
    const otherDestination = await get(
      '/v1/withdraw/addresses/USDT/0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed/ETH',
      mine,
    );
    expect(otherDestination.json().proxy_addresses[0]).not.toBe(proxy);
  });

  it.each([
    [
      'an EVM address with a bad checksum',
      '/v1/withdraw/addresses/USDT/0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD/ETH',
    ],
    ['a short EVM address', '/v1/withdraw/addresses/USDT/0x3f2b1c25/ETH'],
    [
      'a testnet address on the bitcoin mainnet',
      '/v1/withdraw/addresses/BTC/tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx/BTC',
    ],
    [
      'a bech32 address with a bad checksum',
      '/v1/withdraw/addresses/BTC/bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdr/BTC',
    ],
  ])('refuses %s with 400, code 10207', async (_name, url) => {
    const response = await get(url, mine);
    expect(response.statusCode).toBe(400);
    expect(codeOf(response)).toBe(10207);
  });

  it('refuses an inactive withdrawal with 403', async () => {
    const response = await get('/v1/withdraw/addresses/USDC/0x3f2b1c25A5f23b193560B97988ee98cBDb480730/ETH', mine);
    expect(response.statusCode).toBe(403);
    expect(codeOf(response)).toBe(10101);
  });

  it("on the ledger's own platform the deposit address is the account's own ledger address", async () => {
    const eth = ethUser('W');
    const ethToken = `Bearer ${(await signIn(t.app, eth)).access_token}`;
    for (const [token, user] of [
      [mine, me],
      [ethToken, eth],
    ] as const) {
      for (const url of ['/v1/deposit/addresses/WAVES/WAVES', '/v1/deposit/addresses/USDT/WAVES']) {
        const response = await get(url, token);
        expect(response.statusCode, response.body).toBe(200);
        expect(response.json()).toMatchObject({
          type: 'deposit_addresses',
          currency: { type: 'deposit_currency', platform_id: 'WAVES', fees: { flat: 0, rate: 0 } },
          deposit_addresses: [user.address],
        });
      }
    }
    // Nothing is derived or allocated for it.
    const allocated = await t.store.db
      .selectFrom('deposit_addresses')
      .select('address')
      .where('platform_id', '=', 'WAVES')
      .execute();
    expect(allocated).toEqual([]);
  });

  it("a withdrawal to the ledger's own platform is a transfer straight to the destination", async () => {
    const destination = someoneElse.address;
    const response = await get(`/v1/withdraw/addresses/WAVES/${destination}/WAVES`, mine);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({
      type: 'withdrawal_addresses',
      currency: { type: 'withdrawal_currency', id: 'WAVES', platform_id: 'WAVES', fees: { flat: 0, rate: 0 } },
      proxy_addresses: [destination],
    });
    const allocated = await t.store.db
      .selectFrom('withdrawal_addresses')
      .select('proxy_address')
      .where('platform_id', '=', 'WAVES')
      .execute();
    expect(allocated).toEqual([]);
    // The destination must be a ledger address of this network.
    for (const other of ['0x3f2b1c25A5f23b193560B97988ee98cBDb480730', '3MwJc5iX7QQGq5ciVFdNK7B5KSEGbUCVxDw']) {
      const refused = await get(`/v1/withdraw/addresses/WAVES/${other}/WAVES`, mine);
      expect(refused.statusCode).toBe(400);
      expect(codeOf(refused)).toBe(10207);
    }
  });

  it('no operation answers 5xx for any platform of any kind, nor for any currency on it', async () => {
    const platforms = await t.store.db.selectFrom('platforms').select(['id', 'address_kind']).execute();
    expect(new Set(platforms.map((p) => p.address_kind))).toEqual(new Set(['evm', 'bitcoin', 'ledger']));
    const currencies = await t.store.db.selectFrom('currencies').select('id').execute();
    const destinations: Record<string, string> = {
      evm: '0x3f2b1c25A5f23b193560B97988ee98cBDb480730',
      bitcoin: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
      ledger: someoneElse.address,
    };
    const answered = new Set<number>();
    for (const platform of platforms) {
      const destination = destinations[platform.address_kind] ?? '';
      for (const { id: currency } of currencies) {
        for (const url of [
          `/v1/platforms/${platform.id}`,
          `/v1/deposit/currencies/${currency}/${platform.id}`,
          `/v1/withdraw/currencies/${currency}/${platform.id}`,
          `/v1/deposit/addresses/${currency}/${platform.id}`,
          `/v1/deposit/addresses/${currency}`,
          `/v1/withdraw/addresses/${currency}/${destination}/${platform.id}`,
          `/v1/withdraw/addresses/${currency}/${destination}`,
        ]) {
          const response = await get(url, mine);
          expect(response.statusCode, `${url}: ${response.body}`).toBeLessThan(500);
          answered.add(response.statusCode);
        }
      }
    }
    // The walk reached the successes and each kind of refusal, not only one of them.
    expect([...answered].sort()).toEqual([200, 400, 403, 404]);
  });

  it("lists only the account's movements, and another account's movement is a 404 like a missing one", async () => {
    const list = (await get('/v1/movements', mine)).json();
    expect(list.items.length).toBeGreaterThan(10);
    const ownIds = new Set(list.items.map((m: { id: string }) => m.id));
    const foreign = await t.store.db
      .selectFrom('movements')
      .select('id')
      .where('account', '!=', me.address)
      .executeTakeFirstOrThrow();
    expect(ownIds.has(foreign.id)).toBe(false);
    const own = list.items[0];
    const one = await get(`/v1/movements/${own.id}`, mine);
    expect(one.json()).toEqual(own);
    const notMine = await get(`/v1/movements/${foreign.id}`, mine);
    const missing = await get('/v1/movements/no-such-movement', mine);
    expect([notMine.statusCode, missing.statusCode]).toEqual([404, 404]);
    expect(notMine.body).toBe(missing.body);
  });
});

describe('destination addresses', () => {
  const evm = { address_kind: 'evm', xpub: '', network: null };
  const btc = { address_kind: 'bitcoin', xpub: '', network: 'mainnet' };
  const ledger = { address_kind: 'ledger', xpub: '', network: null };
  it.each([
    [evm, '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', true],
    [evm, '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed', true],
    [btc, 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', true],
    [btc, 'bc1p5d7rjq7g6rdk2yhzks9smlaqtedr4dekq08ge8ztwac72sfr9rusxg3297', true],
    [btc, '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', true],
    [btc, '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', true],
    [btc, '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3', false],
    [btc, 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq0', false],
    [ledger, '3P9KR33QyXwfTXv8kKtNGZYtgKk3RXSUk36', true],
    [ledger, '3MwJc5iX7QQGq5ciVFdNK7B5KSEGbUCVxDw', false],
  ])('%o %s -> %s', (platform, destination, valid) => {
    expect(isValidDestination(platform, destination, 'W')).toBe(valid);
  });
});
