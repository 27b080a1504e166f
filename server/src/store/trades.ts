/** Trades: an address's keyset pages for a pair, and the feed's upsert. */
import type { Kysely } from 'kysely';
import { withTradeDocument } from './documents.js';
import {
  compiledOnce,
  type DocumentPage,
  documentPage,
  type FixedFields,
  firstOrderChange,
  type Keyset,
  lastOfEach,
  type PageSize,
  type PageSource,
  type SortOrder,
} from './pages.js';
import { withRows } from './rows.js';
import type { Database, Statement, TradeRecord } from './schema.js';
import { TRADE } from './stored-records.js';

export interface TradeQuery extends PageSize {
  address: string;
  amountCurrencyId: string;
  priceCurrencyId: string;
  from: string | null;
  before: string | null;
  sort: SortOrder;
  after: Keyset | null;
}

/** The query of a trades page: the documents of an address's trades for a pair, by (timestamp, id). */
export function tradesPageQuery(db: Kysely<Database>, q: Omit<TradeQuery, 'maxBytes'>): Statement {
  const parameters = [
    q.address,
    q.amountCurrencyId,
    q.priceCurrencyId,
    ...(q.from === null ? [] : [q.from]),
    ...(q.before === null ? [] : [q.before]),
    ...(q.after ?? []),
    q.limit + 1,
  ];
  const shape = `trades ${q.sort}${q.from === null ? '' : ' from'}${q.before === null ? '' : ' before'}${q.after === null ? '' : ' after'}`;
  return compiledOnce(db, shape, parameters, () => {
    let query = db
      .selectFrom('trades')
      .select('document')
      .where('address', '=', q.address)
      .where('amount_currency_id', '=', q.amountCurrencyId)
      .where('price_currency_id', '=', q.priceCurrencyId);
    if (q.from !== null) query = query.where('timestamp', '>=', q.from);
    if (q.before !== null) query = query.where('timestamp', '<', q.before);
    if (q.after !== null) {
      const [time, id] = q.after;
      query = query.where((eb) =>
        eb(eb.refTuple('timestamp', 'id'), q.sort === 'desc' ? '<' : '>', eb.tuple(time, id)),
      );
    }
    return query
      .orderBy('timestamp', q.sort)
      .orderBy('id', q.sort)
      .limit(q.limit + 1)
      .compile();
  });
}

/** A page of an address's trades for a pair, ordered by (timestamp, id) in `sort` order. */
export async function listTrades({ db, firstColumn }: PageSource, q: TradeQuery): Promise<DocumentPage> {
  return documentPage(await firstColumn(tradesPageQuery(db, q)), q, 'timestamp');
}

const tradeKey = (row: Pick<TradeRecord, 'address' | 'id'>) => `${row.address}\n${row.id}`;

/** A trade's place in its list: its address's list, by `timestamp`. */
const TRADE_ORDER: FixedFields<TradeRecord, 'timestamp'> = {
  key: tradeKey,
  subject: (row) => `trade ${row.id} of ${row.address}`,
  fields: ['timestamp'],
};

/**
 * Upserts trades by (address, id) in one transaction: all of them are written, or none. A record that
 * changes a stored trade's `timestamp` is refused (OrderChange) and nothing is written, checked by the
 * statement itself as for movements (store/movements.ts).
 */
export async function upsertTrades(db: Kysely<Database>, batch: readonly TradeRecord[]): Promise<void> {
  const withinBatch = firstOrderChange(batch, TRADE_ORDER);
  if (withinBatch) throw withinBatch;
  const rows = lastOfEach(batch, TRADE_ORDER.key).map(withTradeDocument);
  if (rows.length === 0) return;
  await db.transaction().execute(async (trx) => {
    let written = 0;
    for (const values of withRows(trx, 'trades', TRADE.columns, rows)) {
      const returned = await values(trx.insertInto('trades'))
        .onConflict((oc) =>
          oc
            .columns(['address', 'id'])
            .doUpdateSet((eb) => Object.fromEntries(TRADE.updated.map((c) => [c, eb.ref(`excluded.${c}`)])))
            .where('trades.timestamp', '=', (eb) => eb.ref('excluded.timestamp')),
        )
        .returning('id')
        .execute();
      written += returned.length;
    }
    if (written === rows.length) return;
    // Every trade of the batch's addresses with one of its ids: a superset of its rows, looked up by key.
    const stored = await trx
      .selectFrom('trades')
      .select(['address', 'id', 'timestamp'])
      .where('address', 'in', [...new Set(rows.map((r) => r.address))])
      .where('id', 'in', [...new Set(rows.map((r) => r.id))])
      .execute();
    throw (
      firstOrderChange(batch, TRADE_ORDER, new Map(stored.map((r) => [tradeKey(r), r]))) ??
      new Error('a trade upsert wrote fewer rows than it was given, none of them changed')
    );
  });
}
