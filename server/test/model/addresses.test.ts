/**
 * Model-based: concurrent first (and later) requests for deposit and withdrawal proxy addresses, across
 * accounts of several seeds, the demo catalogue's platforms and, on PostgreSQL, two instances. Each group of
 * requests is fired at once. Model: one deposit address per account and platform (shared by its
 * currencies), one proxy per account and route (currency, destination in any letter case, platform), never
 * changing and never shared between accounts; the ledger's platform answers the account's own address for
 * deposits and the destination itself for withdrawals.
 */

import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signIn, type TestApp, testApp } from '../support/app.js';
import { DATABASES } from '../support/databases.js';
import { checkModel, modelRuns, StepCounter } from '../support/model.js';
import { DEMO_SEED, ethUser, type LedgerUser, ledgerUser, me, someoneElse } from '../support/signers.js';

const ANOTHER_SEED = 'another seed of the model test, not a wallet of anyone';
/** The demo catalogue's active routes: currency and platform. WAVES is the ledger's platform. */
const ROUTES = [
  ['BNB', 'BSC'],
  ['BTC', 'BTC'],
  ['ETH', 'ETH'],
  ['USDT', 'BSC'],
  ['USDT', 'ETH'],
  ['USDT', 'WAVES'],
  ['WAVES', 'ETH'],
  ['WAVES', 'WAVES'],
] as const;
const LEDGER_PLATFORM = 'WAVES';
/**
 * Valid withdrawal destinations of each platform, some of them one address in several letter cases (EVM:
 * checksummed, lowercase, uppercase; bech32: lowercase, uppercase), which are one destination.
 */
const DESTINATIONS: Record<string, readonly string[]> = {
  BSC: [
    '0x3f2b1c25A5f23b193560B97988ee98cBDb480730',
    '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    '0x3F2B1C25A5F23B193560B97988EE98CBDB480730',
  ],
  ETH: [
    '0x3f2b1c25A5f23b193560B97988ee98cBDb480730',
    '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed',
  ],
  BTC: ['bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', 'BC1QAR0SRRR7XFKVY5L643LYDNW9RE59GTZZWF5MDQ'],
  WAVES: [me.address, someoneElse.address],
};
const ACCOUNTS = 4;

const request = fc.record({
  account: fc.nat({ max: ACCOUNTS - 1 }),
  instance: fc.nat({ max: 1 }),
  route: fc.nat({ max: ROUTES.length - 1 }),
  withdrawal: fc.boolean(),
  destination: fc.nat({ max: 2 }),
});
/** Groups of requests fired at once, one group after the other. */
const groups = fc.array(fc.array(request, { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 6 });

describe.each(DATABASES)('model: deposit and withdrawal addresses on %s', (kind) => {
  let t: TestApp;
  let apps: FastifyInstance[];
  let nonce = 0;
  const counter = new StepCounter();
  /** Every address given out by any sequence, with what owns it: addresses are never shared. */
  const owners = new Map<string, string>();
  beforeAll(async () => {
    // Its sequences are about one proxy per route, not the limits on new ones (test/domain/withdrawal-limits.test.ts).
    t = await testApp(kind, { demo: true, config: { withdrawalAddressRateLimit: 100_000 } });
    // Two instances on PostgreSQL; SQLite is one process's embedded database, so one instance.
    apps = kind === 'postgres' ? [t.app, await t.another()] : [t.app];
  });
  afterAll(() => t.close());

  /** Fresh accounts for a sequence (first requests are the ones that allocate): two seeds and an EVM key. */
  function accounts(): LedgerUser[] {
    nonce += 1;
    return [
      ledgerUser(DEMO_SEED, 'W', 2000 + nonce),
      ledgerUser(ANOTHER_SEED, 'W', nonce),
      ledgerUser(ANOTHER_SEED, 'W', 5000 + nonce),
      ethUser('W'),
    ];
  }

  it('one address per account and platform (route), stable, never shared, whatever the concurrency', async () => {
    const property = fc.asyncProperty(groups, async (sequence) => {
      counter.sequences++;
      const users = accounts();
      const tokens = await Promise.all(users.map(async (u) => `Bearer ${(await signIn(t.app, u)).access_token}`));
      /** The model: the address of each deposit key and proxy route once given. */
      const given = new Map<string, string>();
      for (const group of sequence) {
        const planned = group.map((r) => {
          const [currency, platform] = ROUTES[r.route] as (typeof ROUTES)[number];
          const user = users[r.account] as LedgerUser;
          const destinations = DESTINATIONS[platform] as readonly string[];
          const destination = destinations[r.destination % destinations.length] as string;
          return {
            user,
            platform,
            destination,
            withdrawal: r.withdrawal,
            url: r.withdrawal
              ? `/v1/withdraw/addresses/${currency}/${destination}/${platform}`
              : `/v1/deposit/addresses/${currency}/${platform}`,
            key: r.withdrawal
              ? `proxy ${user.address} ${currency} ${destination.toLowerCase()} ${platform}`
              : `deposit ${user.address} ${platform}`,
            app: apps[r.instance % apps.length] as FastifyInstance,
            authorization: tokens[r.account] as string,
          };
        });
        counter.steps += planned.length;
        const responses = await Promise.all(
          planned.map((p) => p.app.inject({ url: p.url, headers: { authorization: p.authorization } })),
        );
        for (const [i, p] of planned.entries()) {
          const response = responses[i] as (typeof responses)[number];
          expect(response.statusCode, `${p.url}: ${response.body}`).toBe(200);
          const addresses: string[] = response.json()[p.withdrawal ? 'proxy_addresses' : 'deposit_addresses'];
          expect(addresses).toHaveLength(1);
          const address = addresses[0] as string;
          if (p.platform === LEDGER_PLATFORM) {
            // Nothing stands between: the account's own ledger address, or the destination itself.
            expect(address).toBe(p.withdrawal ? p.destination : p.user.address);
            continue;
          }
          const earlier = given.get(p.key);
          if (earlier === undefined) given.set(p.key, address);
          else expect(address, `${p.key} changed`).toBe(earlier);
          const owner = owners.get(address);
          if (owner === undefined) owners.set(address, p.key);
          else expect(owner, `${address} is given to two owners`).toBe(p.key);
        }
      }
    });
    await checkModel(`addresses-${kind}`, property, counter, modelRuns(5));
  });
});
