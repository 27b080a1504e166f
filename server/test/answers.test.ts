/**
 * The response checker (test/support/answers.ts) catches what the server's tests would otherwise miss: a
 * stored document (pre-rendered JSON text, which Fastify's serializer never sees) missing a required field,
 * named by operation, status and field. Each test takes the violations it provoked, so that the checker's
 * afterEach does not fail it.
 */
import { describe, expect, it } from 'vitest';
import { signedInAccounts } from './support/accounts.js';
import { describeViolation, problemsOf, takeViolations } from './support/answers.js';
import { DATABASES } from './support/databases.js';
import { me } from './support/signers.js';

describe.each(DATABASES)('answers checked against the spec on %s', (kind) => {
  const f = signedInAccounts(kind);

  it('a field dropped at run time from a stored movement document fails, naming the operation', async () => {
    expect(takeViolations()).toEqual([]);
    const row = await f.t.store.db
      .selectFrom('movements')
      .select(['id', 'document'])
      .where('account', '=', me.address)
      .executeTakeFirstOrThrow();
    const { currency_id: _dropped, ...rest } = JSON.parse(row.document) as Record<string, unknown>;
    expect(_dropped).toBeDefined();
    await f.t.store.db
      .updateTable('movements')
      .set({ document: JSON.stringify(rest) })
      .where('id', '=', row.id)
      .execute();

    const one = await f.get(`/v1/movements/${row.id}`, f.mine);
    const list = await f.get('/v1/movements?limit=100', f.mine);
    // The server sent them as they are: only the checker notices.
    expect([one.statusCode, list.statusCode]).toEqual([200, 200]);
    const found = takeViolations().map(describeViolation);
    await f.t.store.db.updateTable('movements').set({ document: row.document }).where('id', '=', row.id).execute();
    expect(found).toEqual([
      expect.stringMatching(/^getMovement \(GET \/v1\/movements\/.+\) answered 200: .*currency_id/),
      expect.stringMatching(
        /^listMovements \(GET \/v1\/movements\?limit=100\) answered 200: \/items\/\d+ .*currency_id/,
      ),
    ]);
  });

  it('the same answers pass once the document is whole again', async () => {
    const list = await f.get('/v1/movements', f.mine);
    expect(list.statusCode).toBe(200);
    expect(takeViolations()).toEqual([]);
  });
});

describe('the checks of one answer', () => {
  const movement = {
    type: 'gateway_movement',
    id: 'a',
    direction: 'deposit',
    status: 'confirmed',
    source_platform_id: 'ETH',
    destination_platform_id: 'WAVES',
    currency_id: 'USDT',
    amount: 1,
    fee: 0,
    created_at: '2021-06-14T09:12:44.000Z',
    updated_at: '2021-06-14T09:12:44.000Z',
    recipient_address: 'x',
    transactions: [],
  };
  const json = 'application/json; charset=utf-8';

  it('a wrong type, an undocumented status and an undocumented media type are each named', () => {
    expect(problemsOf('getMovement', 200, json, JSON.stringify(movement))).toEqual([]);
    expect(problemsOf('getMovement', 200, json, JSON.stringify({ ...movement, amount: '1' })).join()).toMatch(
      /\/amount must be number/,
    );
    expect(problemsOf('getMovement', 418, json, '{}')).toEqual(['status 418 is not documented for getMovement']);
    expect(problemsOf('getMovement', 200, 'text/html', '<p>')[0]).toMatch(/content type text\/html is not documented/);
  });
});
