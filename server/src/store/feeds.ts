/** Movements and trades: keyset pages over (time, id), and the upserts the import commands use. */
import type { Kysely } from 'kysely';
import type { Database, MovementTable, TradeTable } from './schema.js';

export type SortOrder = 'asc' | 'desc';
/** Position of the last item of a page: its time and id. */
export type Keyset = readonly [time: string, id: string];

export interface TradeQuery {
  address: string;
  amountCurrencyId: string;
  priceCurrencyId: string;
  from: string | null;
  before: string | null;
  sort: SortOrder;
  limit: number;
  after: Keyset | null;
}

/** A page of an address's trades for a pair, ordered by (timestamp, id) in `sort` order. */
export async function listTrades(
  db: Kysely<Database>,
  q: TradeQuery,
): Promise<{ rows: TradeTable[]; hasNext: boolean }> {
  let query = db
    .selectFrom('trades')
    .selectAll()
    .where('address', '=', q.address)
    .where('amount_currency_id', '=', q.amountCurrencyId)
    .where('price_currency_id', '=', q.priceCurrencyId);
  if (q.from !== null) query = query.where('timestamp', '>=', q.from);
  if (q.before !== null) query = query.where('timestamp', '<', q.before);
  if (q.after !== null) {
    const [time, id] = q.after;
    query = query.where((eb) => eb(eb.refTuple('timestamp', 'id'), q.sort === 'desc' ? '<' : '>', eb.tuple(time, id)));
  }
  const rows = await query
    .orderBy('timestamp', q.sort)
    .orderBy('id', q.sort)
    .limit(q.limit + 1)
    .execute();
  return { rows: rows.slice(0, q.limit), hasNext: rows.length > q.limit };
}

/** A page of an account's movements, newest first, ties broken by id descending. */
export async function listMovements(
  db: Kysely<Database>,
  q: { account: string; limit: number; after: Keyset | null },
): Promise<{ rows: MovementTable[]; hasNext: boolean }> {
  let query = db.selectFrom('movements').selectAll().where('account', '=', q.account);
  if (q.after !== null) {
    const [time, id] = q.after;
    query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(time, id)));
  }
  const rows = await query
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(q.limit + 1)
    .execute();
  return { rows: rows.slice(0, q.limit), hasNext: rows.length > q.limit };
}

/** One movement of an account; another account's movement is not found, like a missing one. */
export function findMovement(db: Kysely<Database>, account: string, id: string): Promise<MovementTable | undefined> {
  return db.selectFrom('movements').selectAll().where('id', '=', id).where('account', '=', account).executeTakeFirst();
}

/** The last row of each key: one statement may not upsert the same row twice (PostgreSQL refuses). */
function lastOfEach<T>(rows: readonly T[], key: (row: T) => string): T[] {
  return [...new Map(rows.map((row) => [key(row), row])).values()];
}

/** Upserts movements by id in one transaction: all of them are written, or none. */
export async function upsertMovements(db: Kysely<Database>, batch: readonly MovementTable[]): Promise<void> {
  const rows = lastOfEach(batch, (r) => r.id);
  if (rows.length === 0) return;
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('movements')
      .values([...rows])
      .onConflict((oc) =>
        oc.column('id').doUpdateSet((eb) => ({
          account: eb.ref('excluded.account'),
          direction: eb.ref('excluded.direction'),
          status: eb.ref('excluded.status'),
          source_platform_id: eb.ref('excluded.source_platform_id'),
          destination_platform_id: eb.ref('excluded.destination_platform_id'),
          currency_id: eb.ref('excluded.currency_id'),
          amount: eb.ref('excluded.amount'),
          fee: eb.ref('excluded.fee'),
          created_at: eb.ref('excluded.created_at'),
          updated_at: eb.ref('excluded.updated_at'),
          recipient_address: eb.ref('excluded.recipient_address'),
          transactions: eb.ref('excluded.transactions'),
        })),
      )
      .execute();
  });
}

/** Upserts trades by (address, id) in one transaction: all of them are written, or none. */
export async function upsertTrades(db: Kysely<Database>, batch: readonly TradeTable[]): Promise<void> {
  const rows = lastOfEach(batch, (r) => `${r.address}\n${r.id}`);
  if (rows.length === 0) return;
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('trades')
      .values([...rows])
      .onConflict((oc) =>
        oc.columns(['address', 'id']).doUpdateSet((eb) => ({
          amount_currency_id: eb.ref('excluded.amount_currency_id'),
          price_currency_id: eb.ref('excluded.price_currency_id'),
          type: eb.ref('excluded.type'),
          timestamp: eb.ref('excluded.timestamp'),
          amount: eb.ref('excluded.amount'),
          price: eb.ref('excluded.price'),
        })),
      )
      .execute();
  });
}
