/**
 * `Store.allOrNothing`: statements that are kept together or not at all (the token grants' writes).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestStore, DATABASES, type TestStore } from '../support/databases.js';

describe.each(DATABASES)('allOrNothing on %s', (kind) => {
  let t: TestStore;
  // One PostgreSQL connection: a transaction left open or a connection not given back would stall the next test.
  beforeAll(async () => {
    t = await createTestStore(kind, { poolSize: 1 });
  });
  afterAll(() => t.close());

  const family = (id: string) =>
    t.store.db
      .insertInto('token_families')
      .values({ id, account: 'account', revoked_at: null, created_at: '2024-01-01T00:00:00.000Z' })
      .compile();
  const revoke = (id: string) =>
    t.store.db
      .updateTable('token_families')
      .set({ revoked_at: '2024-01-02T00:00:00.000Z' })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .compile();
  const families = async () =>
    (await t.store.db.selectFrom('token_families').select(['id', 'revoked_at']).orderBy('id').execute()).map(
      (row) => `${row.id}:${row.revoked_at === null ? 'live' : 'revoked'}`,
    );

  it('keeps every statement when each changes a row', async () => {
    expect(await t.store.allOrNothing([family('a1'), family('a2'), revoke('a1')])).toBe(true);
    expect(await families()).toEqual(['a1:revoked', 'a2:live']);
  });

  it('keeps nothing, and answers false, when one statement changes no row', async () => {
    // a1 is revoked already: the last statement changes nothing, so b1 is not kept either.
    expect(await t.store.allOrNothing([family('b1'), revoke('a1')])).toBe(false);
    expect(await families()).toEqual(['a1:revoked', 'a2:live']);
  });

  it('keeps nothing, and throws, when one statement fails', async () => {
    await expect(t.store.allOrNothing([family('c1'), revoke('a2'), family('a1')])).rejects.toThrow();
    expect(await families()).toEqual(['a1:revoked', 'a2:live']);
    // The store goes on working (on PostgreSQL, its only connection was given back, out of the transaction).
    expect(await t.store.allOrNothing([family('c1')])).toBe(true);
    expect(await families()).toEqual(['a1:revoked', 'a2:live', 'c1:live']);
  });
});
