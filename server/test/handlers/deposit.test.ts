/** Deposit addresses of the signed-in account, on every kind of platform. */
import { HDKey } from '@scure/bip32';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { depositAddressFor } from '../../src/domain/addresses.js';
import { signedInAccounts } from '../support/accounts.js';
import { codeOf, signIn } from '../support/app.js';
import { DATABASES } from '../support/databases.js';
import { DEMO_SEED, ethUser, ledgerUser, me } from '../support/signers.js';

describe.each(DATABASES)('deposit addresses on %s', (kind) => {
  const f = signedInAccounts(kind);
  const get = (url: string, authorization: string, app?: FastifyInstance) => f.get(url, authorization, app);

  it('gives a deposit address derived from the platform key, the same every time and after a restart', async () => {
    const first = await get('/v1/deposit/addresses/USDT/ETH', f.mine);
    expect(first.statusCode, first.body).toBe(200);
    const body = first.json();
    expect(body.type).toBe('deposit_addresses');
    expect(body.currency).toMatchObject({ type: 'deposit_currency', id: 'USDT', platform_id: 'ETH' });
    const [address] = body.deposit_addresses;
    expect(address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    // Derived, not invented: child 0 of the platform's extended public key, EIP-55.
    const platform = await f.t.store.db
      .selectFrom('platforms')
      .selectAll()
      .where('id', '=', 'ETH')
      .executeTakeFirstOrThrow();
    const row = await f.t.store.db
      .selectFrom('deposit_addresses')
      .selectAll()
      .where('address', '=', address)
      .executeTakeFirstOrThrow();
    expect(depositAddressFor(platform, row.child_index)).toBe(address);
    expect(HDKey.fromExtendedKey(platform.xpub).deriveChild(row.child_index).publicKey).toBeDefined();
    // Another currency on the same platform shares the account's platform address.
    expect((await get('/v1/deposit/addresses/WAVES/ETH', f.mine)).json().deposit_addresses).toEqual([address]);
    const restarted = await f.t.another();
    expect((await get('/v1/deposit/addresses/USDT/ETH', f.mine, restarted)).json().deposit_addresses).toEqual([
      address,
    ]);
  });

  it('a bitcoin platform gives a bech32 P2WPKH address; the deprecated path uses the default platform', async () => {
    const response = await get('/v1/deposit/addresses/BTC', f.mine);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().deposit_addresses[0]).toMatch(/^bc1q[02-9ac-hj-np-z]{38}$/);
    expect(response.headers.deprecation).toMatch(/^@\d+$/);
    expect(response.headers.link).toBe('</v1/deposit/addresses/BTC/BTC>; rel="successor-version"');
  });

  it('concurrent first requests of many accounts, on two instances: one address each, never shared', async () => {
    const second = await f.t.another();
    const users = Array.from({ length: 12 }, (_, i) =>
      i % 3 === 0 ? ethUser('W') : ledgerUser(DEMO_SEED, 'W', 100 + i),
    );
    const tokens = await Promise.all(users.map(async (u) => `Bearer ${(await signIn(f.t.app, u)).access_token}`));
    const responses = await Promise.all(
      tokens.flatMap((token) =>
        [0, 1, 2].map((i) => get('/v1/deposit/addresses/USDT/BSC', token, i % 2 ? second : f.t.app)),
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
    const response = await get('/v1/deposit/addresses/USDC/ETH', f.mine);
    expect(response.statusCode).toBe(403);
    expect(codeOf(response)).toBe(10101);
  });

  it.each([
    ['/v1/deposit/addresses/NOPE/ETH', 10401],
    ['/v1/deposit/addresses/USDT/SOL', 10402],
    ['/v1/deposit/addresses/BTC/ETH', 10403],
  ])('%s: 404 with code %i', async (url, code) => {
    const response = await get(url, f.mine);
    expect(response.statusCode).toBe(404);
    expect(codeOf(response)).toBe(code);
  });

  it("on the ledger's own platform the deposit address is the account's own ledger address", async () => {
    const eth = ethUser('W');
    const ethToken = `Bearer ${(await signIn(f.t.app, eth)).access_token}`;
    for (const [token, user] of [
      [f.mine, me],
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
    const allocated = await f.t.store.db
      .selectFrom('deposit_addresses')
      .select('address')
      .where('platform_id', '=', 'WAVES')
      .execute();
    expect(allocated).toEqual([]);
  });
});
