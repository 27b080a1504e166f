/**
 * Withdrawal (proxy) addresses of the signed-in account, on every kind of platform: one proxy per route,
 * whatever the letter case its destination is written in, also for rows stored before destinations were
 * normalised. (The limits on new proxies: test/domain/withdrawal-limits.test.ts.)
 */
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { proxyAddressFor } from '../../src/domain/addresses.js';
import { signedInAccounts } from '../support/accounts.js';
import { codeOf, signIn } from '../support/app.js';
import { DATABASES } from '../support/databases.js';
import { reference } from '../support/oracle.js';
import { DEMO_SEED, ledgerUser, someoneElse } from '../support/signers.js';

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
      'an EVM address whose mixed case is not its checksum',
      '/v1/withdraw/addresses/USDT/0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD/ETH',
      'checksum',
    ],
    ['a short EVM address', '/v1/withdraw/addresses/USDT/0x3f2b1c25/ETH', 'format'],
    [
      'a testnet address on the bitcoin mainnet',
      '/v1/withdraw/addresses/BTC/tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx/BTC',
      'network',
    ],
    [
      'a bech32 address with a bad checksum',
      '/v1/withdraw/addresses/BTC/bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdr/BTC',
      'checksum',
    ],
    [
      'a bech32 address in mixed case',
      '/v1/withdraw/addresses/BTC/bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5MDQ/BTC',
      'mixed_case',
    ],
  ])('refuses %s with 400, code 10207, saying why', async (_name, url, reason) => {
    const response = await get(url, f.mine);
    expect(response.statusCode).toBe(400);
    expect(codeOf(response)).toBe(10207);
    expect(response.json().errors[0].details).toEqual({ parameter: 'address', platform: url.split('/')[6], reason });
  });

  /** A fresh account of the demo seed, signed in: its first requests are the ones that allocate. */
  async function freshAccount(): Promise<string> {
    const user = ledgerUser(DEMO_SEED, 'W', 10_000 + Math.floor(Math.random() * 1_000_000));
    return `Bearer ${(await signIn(f.t.app, user)).access_token}`;
  }
  const rowsOf = (proxy: string) =>
    f.t.store.db.selectFrom('withdrawal_addresses').selectAll().where('proxy_address', '=', proxy).execute();

  it('one destination, one proxy, whatever its letter case: stored in its normal form', async () => {
    const auth = await freshAccount();
    const checksummed = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';
    const spellings = [checksummed, checksummed.toLowerCase(), `0x${checksummed.slice(2).toUpperCase()}`];
    const proxies = new Set<string>();
    for (const spelling of spellings) {
      for (const url of [`/v1/withdraw/addresses/USDT/${spelling}/ETH`, `/v1/withdraw/addresses/USDT/${spelling}`]) {
        const response = await get(url, auth);
        expect(response.statusCode, response.body).toBe(200);
        proxies.add(response.json().proxy_addresses[0]);
      }
    }
    expect(proxies.size).toBe(1);
    const [proxy] = [...proxies] as [string];
    expect((await rowsOf(proxy)).map((r) => r.destination)).toEqual([checksummed.toLowerCase()]);
    // Another platform of the same kind is another route.
    const bsc = await get(`/v1/withdraw/addresses/USDT/${checksummed}/BSC`, auth);
    expect(bsc.json().proxy_addresses[0]).not.toBe(proxy);

    const segwit = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
    const lower = await get(`/v1/withdraw/addresses/BTC/${segwit}/BTC`, auth);
    const upper = await get(`/v1/withdraw/addresses/BTC/${segwit.toUpperCase()}/BTC`, auth);
    expect(upper.json().proxy_addresses).toEqual(lower.json().proxy_addresses);
    expect((await rowsOf(lower.json().proxy_addresses[0])).map((r) => r.destination)).toEqual([segwit]);
  });

  it('concurrent requests for one destination in its several spellings give one proxy, across instances too', async () => {
    const auth = await freshAccount();
    const checksummed = '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB';
    const spellings = [checksummed, checksummed.toLowerCase(), `0x${checksummed.slice(2).toUpperCase()}`];
    // On PostgreSQL through two instances (one process's database on SQLite): each shares its creation among
    // its own requests, and the database's constraint settles the race between them.
    const apps = kind === 'postgres' ? [f.t.app, await f.t.another()] : [f.t.app];
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        get(`/v1/withdraw/addresses/ETH/${spellings[i % 3]}/ETH`, auth, apps[i % apps.length]),
      ),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(answers.map(() => 200));
    const proxies = new Set(answers.map((a) => a.json().proxy_addresses[0] as string));
    expect(proxies.size).toBe(1);
    expect(await rowsOf([...proxies][0] as string)).toHaveLength(1);
  });

  it('rows stored before destinations were normalised are found by every spelling; of several, the first', async () => {
    const account = ledgerUser(DEMO_SEED, 'W', 20_000 + Math.floor(Math.random() * 1_000_000));
    const auth = `Bearer ${(await signIn(f.t.app, account)).access_token}`;
    const checksummed = '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb';
    const segwit = 'BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4';
    const secrets = JSON.parse(readFileSync(`${f.t.config.dataDir}/secrets.json`, 'utf8'));
    const db = f.t.store.db;
    const last = await db
      .selectFrom('withdrawal_addresses')
      .select((eb) => eb.fn.max('proxy_index').as('max'))
      .executeTakeFirst();
    const base = Number(last?.max ?? 0) + 1;
    // As the release before stored them: the destination as given, and one destination twice in two cases.
    const legacy = [
      { destination: `0x${checksummed.slice(2).toUpperCase()}`, currency: 'USDT', platform: 'ETH' },
      { destination: checksummed, currency: 'USDT', platform: 'ETH' },
      { destination: segwit, currency: 'BTC', platform: 'BTC' },
    ].map((row, i) => ({
      proxy_index: base + i,
      account: account.address,
      currency_id: row.currency,
      destination: row.destination,
      platform_id: row.platform,
      proxy_address: proxyAddressFor(secrets.proxySeed, base + i, 'W'),
      created_at: '2026-01-01T00:00:00.000Z',
    }));
    await db.insertInto('withdrawal_addresses').values(legacy).execute();
    for (const spelling of [checksummed, checksummed.toLowerCase(), `0x${checksummed.slice(2).toUpperCase()}`]) {
      const response = await get(`/v1/withdraw/addresses/USDT/${spelling}/ETH`, auth);
      expect(response.json().proxy_addresses).toEqual([legacy[0]?.proxy_address]);
    }
    for (const spelling of [segwit, segwit.toLowerCase()]) {
      const response = await get(`/v1/withdraw/addresses/BTC/${spelling}/BTC`, auth);
      expect(response.json().proxy_addresses).toEqual([legacy[2]?.proxy_address]);
    }
    const rows = await db
      .selectFrom('withdrawal_addresses')
      .select('proxy_index')
      .where('account', '=', account.address)
      .execute();
    expect(rows).toHaveLength(3);
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
