/** Movements and trades: keyset pages over (time, id), and the upserts the import commands use. */
import type { CompiledQuery, Kysely } from 'kysely';
import { DOCUMENT_FORMAT, withMovementDocument, withTradeDocument } from './documents.js';
import type { Database, MovementRecord, TradeRecord } from './schema.js';
import type { Store } from './store.js';

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

/**
 * A page of documents (the stored JSON text of each item) and the keyset of its last item. Only the
 * documents are read: the keyset is taken from the last one, which holds its time and id as served.
 */
export interface DocumentPage {
  documents: string[];
  last: Keyset | undefined;
  hasNext: boolean;
}

/** Where list pages are read: the query builder and the store's row-object-free read. */
export type PageSource = Pick<Store, 'db' | 'firstColumn'>;

function documentPage(rows: unknown[], limit: number, timeField: string): DocumentPage {
  const documents = rows.slice(0, limit) as string[];
  const lastDocument = documents.at(-1);
  const last = lastDocument === undefined ? undefined : (JSON.parse(lastDocument) as Record<string, string>);
  return {
    documents,
    last: last && [last[timeField] as string, last.id as string],
    hasNext: rows.length > limit,
  };
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

export interface MovementQuery {
  account: string;
  limit: number;
  after: Keyset | null;
}

/** The query of a movements page: the documents of an account's movements, newest first. */
export function movementsPageQuery(db: Kysely<Database>, q: MovementQuery): CompiledQuery {
  let query = db.selectFrom('movements').select('document').where('account', '=', q.account);
  if (q.after !== null) {
    const [time, id] = q.after;
    query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(time, id)));
  }
  return query
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(q.limit + 1)
    .compile();
}

/** A page of an account's movements, newest first, ties broken by id descending. */
export async function listMovements({ db, firstColumn }: PageSource, q: MovementQuery): Promise<DocumentPage> {
  return documentPage(await firstColumn(movementsPageQuery(db, q)), q.limit, 'created_at');
}

/** The document of one movement of an account; another account's movement is not found, like a missing one. */
export async function findMovementDocument(db: Kysely<Database>, account: string, id: string): Promise<string | null> {
  const row = await db
    .selectFrom('movements')
    .select('document')
    .where('id', '=', id)
    .where('account', '=', account)
    .executeTakeFirst();
  return row?.document ?? null;
}

/** The last row of each key: one statement may not upsert the same row twice (PostgreSQL refuses). */
function lastOfEach<T>(rows: readonly T[], key: (row: T) => string): T[] {
  return [...new Map(rows.map((row) => [key(row), row])).values()];
}

/** Upserts movements by id in one transaction: all of them are written, or none. */
export async function upsertMovements(db: Kysely<Database>, batch: readonly MovementRecord[]): Promise<void> {
  const rows = lastOfEach(batch, (r) => r.id).map(withMovementDocument);
  if (rows.length === 0) return;
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('movements')
      .values(rows)
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
          document: eb.ref('excluded.document'),
        })),
      )
      .execute();
  });
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

/**
 * Renders the documents of every movement and trade again when they were rendered in another format (or
 * never: rows written before documents existed). Batches of `batchSize` rows, each written back with the
 * import's own upsert (one statement, one transaction); safe to run from several instances at once (the
 * result is the same). Returns the number of rows rendered.
 */
export async function refreshDocuments(db: Kysely<Database>, batchSize = 1000): Promise<number> {
  const stored = await db.selectFrom('document_format').select('format').where('id', '=', 1).executeTakeFirst();
  if (stored?.format === DOCUMENT_FORMAT) return 0;
  let rendered = 0;
  for (let after: string | null = null; ; ) {
    let query = db.selectFrom('movements').selectAll().orderBy('id').limit(batchSize);
    if (after !== null) query = query.where('id', '>', after);
    const rows = await query.execute();
    if (rows.length === 0) break;
    await upsertMovements(db, rows);
    rendered += rows.length;
    after = (rows.at(-1) as MovementRecord).id;
  }
  for (let after: readonly [string, string] | null = null; ; ) {
    let query = db.selectFrom('trades').selectAll().orderBy('address').orderBy('id').limit(batchSize);
    if (after !== null) {
      const [address, id] = after;
      query = query.where((eb) => eb(eb.refTuple('address', 'id'), '>', eb.tuple(address, id)));
    }
    const rows = await query.execute();
    if (rows.length === 0) break;
    await upsertTrades(db, rows);
    rendered += rows.length;
    const last = rows.at(-1) as TradeRecord;
    after = [last.address, last.id];
  }
  await db.updateTable('document_format').set({ format: DOCUMENT_FORMAT }).where('id', '=', 1).execute();
  return rendered;
}
