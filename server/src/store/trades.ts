/** Trades: an address's keyset pages for a pair, and the feed's upsert. */
import type { CompiledQuery, Kysely } from 'kysely';
import { withTradeDocument } from './documents.js';
import { type DocumentPage, documentPage, type Keyset, lastOfEach, type PageSource, type SortOrder } from './pages.js';
import type { Database, TradeRecord } from './schema.js';

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

/** The query of a trades page: the documents of an address's trades for a pair, by (timestamp, id). */
export function tradesPageQuery(db: Kysely<Database>, q: TradeQuery): CompiledQuery {
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
    query = query.where((eb) => eb(eb.refTuple('timestamp', 'id'), q.sort === 'desc' ? '<' : '>', eb.tuple(time, id)));
  }
  return query
    .orderBy('timestamp', q.sort)
    .orderBy('id', q.sort)
    .limit(q.limit + 1)
    .compile();
}

/** A page of an address's trades for a pair, ordered by (timestamp, id) in `sort` order. */
export async function listTrades({ db, firstColumn }: PageSource, q: TradeQuery): Promise<DocumentPage> {
  return documentPage(await firstColumn(tradesPageQuery(db, q)), q.limit, 'timestamp');
}

/** Upserts trades by (address, id) in one transaction: all of them are written, or none. */
export async function upsertTrades(db: Kysely<Database>, batch: readonly TradeRecord[]): Promise<void> {
  const rows = lastOfEach(batch, (r) => `${r.address}\n${r.id}`).map(withTradeDocument);
  if (rows.length === 0) return;
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('trades')
      .values(rows)
      .onConflict((oc) =>
        oc.columns(['address', 'id']).doUpdateSet((eb) => ({
          amount_currency_id: eb.ref('excluded.amount_currency_id'),
          price_currency_id: eb.ref('excluded.price_currency_id'),
          type: eb.ref('excluded.type'),
          timestamp: eb.ref('excluded.timestamp'),
          amount: eb.ref('excluded.amount'),
          price: eb.ref('excluded.price'),
          document: eb.ref('excluded.document'),
        })),
      )
      .execute();
  });
}
