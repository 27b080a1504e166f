/** Movements: an account's keyset pages, one movement by id, and the feed's upsert. */
import type { CompiledQuery, Kysely } from 'kysely';
import { withMovementDocument } from './documents.js';
import { type DocumentPage, documentPage, type Keyset, lastOfEach, type PageSource } from './pages.js';
import type { Database, MovementRecord } from './schema.js';

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
