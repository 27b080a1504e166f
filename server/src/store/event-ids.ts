/**
 * Each account's event ids (store/events.ts): a batch's ids are drawn from `event_accounts` in the
 * transaction that records the events, under the events' lock on PostgreSQL (SQLite has one writer), so that
 * no other writer draws between the read and the write of an account's count.
 *
 * One statement for the batch's accounts, whichever dialect: on PostgreSQL an UPDATE joined to the batch's
 * counts (two arrays), then an INSERT of the accounts it did not find (their first events), which measured
 * about twice as fast as one upsert (`ON CONFLICT DO UPDATE`) over the same rows; on SQLite one upsert per
 * VALUES list, faster there than an UPDATE … FROM and an INSERT (bench/event-ids.mjs, docs/issue-eventids.md).
 */
import { sql, type Transaction } from 'kysely';
import { isPostgres, withRows } from './rows.js';
import type { Database } from './schema.js';

const ACCOUNT_COLUMNS = ['account', 'last_id', 'legacy_through'] as const;

/**
 * Draws `counts.get(account)` ids for each account: returns the first id of each (the others follow it), and
 * raises each account's last id by its count.
 */
export async function drawEventIds(
  trx: Transaction<Database>,
  counts: ReadonlyMap<string, number>,
): Promise<Map<string, number>> {
  const lasts = isPostgres(trx) ? await raisedOnPostgres(trx, counts) : await raisedOnSqlite(trx, counts);
  return new Map(lasts.map(({ account, last }) => [account, last - (counts.get(account) ?? 0) + 1]));
}

async function raisedOnPostgres(trx: Transaction<Database>, counts: ReadonlyMap<string, number>) {
  const accounts = [...counts.keys()];
  const { rows } = await sql<{ account: string; last_id: string | number }>`
    update event_accounts e set last_id = e.last_id + x.n
    from unnest(${accounts}::text[], ${[...counts.values()]}::bigint[]) as x(account, n)
    where e.account = x.account
    returning e.account, e.last_id`.execute(trx);
  const lasts = rows.map((r) => ({ account: r.account, last: Number(r.last_id) }));
  if (lasts.length < accounts.length) {
    const found = new Set(lasts.map((l) => l.account));
    const first = accounts.filter((a) => !found.has(a));
    const ns = first.map((a) => counts.get(a) ?? 0);
    // Under the events' lock no other writer inserts these rows meanwhile (a conflict would roll back).
    await sql`insert into event_accounts (account, last_id) select * from unnest(${first}::text[], ${ns}::bigint[])`.execute(
      trx,
    );
    for (const [i, account] of first.entries()) lasts.push({ account, last: ns[i] ?? 0 });
  }
  return lasts;
}

async function raisedOnSqlite(trx: Transaction<Database>, counts: ReadonlyMap<string, number>) {
  const drawn = [...counts].map(([account, n]) => ({ account, last_id: n, legacy_through: 0 }));
  const lasts: { account: string; last: number }[] = [];
  for (const values of withRows(trx, 'event_accounts', ACCOUNT_COLUMNS, drawn)) {
    const rows = await values(trx.insertInto('event_accounts'))
      .onConflict((oc) =>
        oc.column('account').doUpdateSet((eb) => ({
          last_id: eb(eb.ref('event_accounts.last_id'), '+', eb.ref('excluded.last_id')),
        })),
      )
      .returning(['account', 'last_id'])
      .execute();
    for (const r of rows) lasts.push({ account: r.account, last: Number(r.last_id) });
  }
  return lasts;
}
