/** Every platform kind the catalogue accepts serves every operation. */
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { signedInAccounts } from '../support/accounts.js';
import { DATABASES } from '../support/databases.js';
import { someoneElse } from '../support/signers.js';

describe.each(DATABASES)('operations on every platform on %s', (kind) => {
  const f = signedInAccounts(kind);
  const get = (url: string, authorization: string, app?: FastifyInstance) => f.get(url, authorization, app);

  it('no operation answers 5xx for any platform of any kind, nor for any currency on it', async () => {
    const platforms = await f.t.store.db.selectFrom('platforms').select(['id', 'address_kind']).execute();
    expect(new Set(platforms.map((p) => p.address_kind))).toEqual(new Set(['evm', 'bitcoin', 'ledger']));
    const currencies = await f.t.store.db.selectFrom('currencies').select('id').execute();
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
          const response = await get(url, f.mine);
          expect(response.statusCode, `${url}: ${response.body}`).toBeLessThan(500);
          answered.add(response.statusCode);
        }
      }
    }
    // The walk reached the successes and each kind of refusal, not only one of them.
    expect([...answered].sort()).toEqual([200, 400, 403, 404]);
  });
});
