/** Withdrawal (proxy) addresses of the signed-in account, on every kind of platform. */
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { proxyAddressFor } from '../../src/domain/addresses.js';
import { signedInAccounts } from '../support/accounts.js';
import { codeOf } from '../support/app.js';
import { DATABASES } from '../support/databases.js';
import { reference } from '../support/oracle.js';
import { someoneElse } from '../support/signers.js';

describe.each(DATABASES)('withdrawal addresses on %s', (kind) => {
  const f = signedInAccounts(kind);
  const get = (url: string, authorization: string, app?: FastifyInstance) => f.get(url, authorization, app);

  it('gives a withdrawal proxy address from the proxy seed, stable per route, one per route', async () => {
    const destination = '0x3f2b1c25A5f23b193560B97988ee98cBDb480730';
    const first = await get(`/v1/withdraw/addresses/USDT/${destination}/ETH`, f.mine);
    expect(first.statusCode, first.body).toBe(200);
    const body = first.json();
    expect(body).toMatchObject({ type: 'withdrawal_addresses', currency: { type: 'withdrawal_currency', id: 'USDT' } });
    const [proxy] = body.proxy_addresses;
    // The operator's signing service derives the same key: the ledger's own account numbering (seed nonce).
    const row = await f.t.store.db
      .selectFrom('withdrawal_addresses')
      .selectAll()
      .where('proxy_address', '=', proxy)
      .executeTakeFirstOrThrow();
    const secrets = JSON.parse((await import('node:fs')).readFileSync(`${f.t.config.dataDir}/secrets.json`, 'utf8'));
    expect(reference.address(reference.keyPair(reference.seedWithNonce(secrets.proxySeed, row.proxy_index)), 'W')).toBe(
      proxy,
    );
    expect(proxyAddressFor(secrets.proxySeed, row.proxy_index, 'W')).toBe(proxy);
    expect((await get(`/v1/withdraw/addresses/USDT/${destination}/ETH`, f.mine)).json().proxy_addresses).toEqual([
      proxy,
    ]);
    // The deprecated path (used by deployed clients) is the same route on the default platform.
    const deprecated = await get(`/v1/withdraw/addresses/USDT/${destination}`, f.mine);
    expect(deprecated.json().proxy_addresses).toEqual([proxy]);
    expect(deprecated.headers.link).toBe(`</v1/withdraw/addresses/USDT/${destination}/ETH>; rel="successor-version"`);
    const other = await get(`/v1/withdraw/addresses/USDT/${destination}/ETH`, f.theirs);
    expect(other.json().proxy_addresses[0]).not.toBe(proxy);
    const otherDestination = await get(
      '/v1/withdraw/addresses/USDT/0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed/ETH',
      f.mine,
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
    const response = await get(url, f.mine);
    expect(response.statusCode).toBe(400);
    expect(codeOf(response)).toBe(10207);
  });

  it('refuses an inactive withdrawal with 403', async () => {
    const response = await get('/v1/withdraw/addresses/USDC/0x3f2b1c25A5f23b193560B97988ee98cBDb480730/ETH', f.mine);
    expect(response.statusCode).toBe(403);
    expect(codeOf(response)).toBe(10101);
  });

  it("a withdrawal to the ledger's own platform is a transfer straight to the destination", async () => {
    const destination = someoneElse.address;
    const response = await get(`/v1/withdraw/addresses/WAVES/${destination}/WAVES`, f.mine);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({
      type: 'withdrawal_addresses',
      currency: { type: 'withdrawal_currency', id: 'WAVES', platform_id: 'WAVES', fees: { flat: 0, rate: 0 } },
      proxy_addresses: [destination],
    });
    const allocated = await f.t.store.db
      .selectFrom('withdrawal_addresses')
      .select('proxy_address')
      .where('platform_id', '=', 'WAVES')
      .execute();
    expect(allocated).toEqual([]);
    // The destination must be a ledger address of this network.
    for (const other of ['0x3f2b1c25A5f23b193560B97988ee98cBDb480730', '3MwJc5iX7QQGq5ciVFdNK7B5KSEGbUCVxDw']) {
      const refused = await get(`/v1/withdraw/addresses/WAVES/${other}/WAVES`, f.mine);
      expect(refused.statusCode).toBe(400);
      expect(codeOf(refused)).toBe(10207);
    }
  });
});
