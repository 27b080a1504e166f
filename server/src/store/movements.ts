/** Movements: an account's keyset pages, one movement by id, and the feed's upsert. */
import type { Kysely } from 'kysely';
import { withMovementDocument } from './documents.js';
import { recordMovementEvents } from './events.js';
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
} from './pages.js';
import { withRows } from './rows.js';
import type { Database, MovementRecord, Statement } from './schema.js';
import { MOVEMENT } from './stored-records.js';

export interface MovementQuery extends PageSize {
  account: string;
  after: Keyset | null;
}

/** The query of a movements page: the documents of an account's movements, newest first. */
export function movementsPageQuery(db: Kysely<Database>, q: Omit<MovementQuery, 'maxBytes'>): Statement {
  const parameters = q.after === null ? [q.account, q.limit + 1] : [q.account, ...q.after, q.limit + 1];
  return compiledOnce(db, q.after === null ? 'movements' : 'movements after', parameters, () => {
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
  });
}

/** A page of an account's movements, newest first, ties broken by id descending. */
export async function listMovements({ db, firstColumn }: PageSource, q: MovementQuery): Promise<DocumentPage> {
  return documentPage(await firstColumn(movementsPageQuery(db, q)), q, 'created_at');
}

/** The query of one movement of an account. */
const singleMovementQuery = (db: Kysely<Database>, account: string, id: string) =>
  compiledOnce(db, 'movement', [id, account], () =>
    db.selectFrom('movements').select('document').where('id', '=', id).where('account', '=', account).compile(),
  );

/**
 * The document of one movement of an account; another account's movement is not found, like a missing one.
 * Run as the pages are (`firstColumn`: on PostgreSQL a statement named once per connection, where the pool
 * mode allows).
 */
export async function findMovementDocument(
  { db, firstColumn }: PageSource,
  account: string,
  id: string,
): Promise<string | null> {
  const [document] = await firstColumn(singleMovementQuery(db, account, id));
  return typeof document === 'string' ? document : null;
}

/** A movement's place in its list: its account's list, by `created_at`. */
const MOVEMENT_ORDER: FixedFields<MovementRecord, 'account' | 'created_at'> = {
  key: (row) => row.id,
  subject: (row) => `movement ${row.id}`,
  fields: ['account', 'created_at'],
};

/**
 * Upserts movements by id in one transaction: all of them are written, or none. A record that changes a
 * stored movement's account or `created_at` is refused (OrderChange) and nothing is written: the update
 * applies only where they are unchanged, and a row that comes back short rolls everything back. The check
 * is the statement's own, so concurrent imports cannot slip a change between a read and a write.
 *
 * A row is written only when its document (what the API serves) changes: an identical record imported again
 * writes nothing. Each movement created or changed is recorded as an event (store/events.ts) in the same
 * transaction, so that no event is announced before its write is committed and none is lost; `announce:
 * false` (documents rendered again in a new format: the movement did not change) records none.
 */
export async function upsertMovements(
  db: Kysely<Database>,
  batch: readonly MovementRecord[],
  { announce = true }: { announce?: boolean } = {},
): Promise<void> {
  const withinBatch = firstOrderChange(batch, MOVEMENT_ORDER);
  if (withinBatch) throw withinBatch;
  const rows = lastOfEach(batch, MOVEMENT_ORDER.key).map(withMovementDocument);
  if (rows.length === 0) return;
  await db.transaction().execute(async (trx) => {
    const written = new Set<string>();
    for (const values of withRows(trx, 'movements', MOVEMENT.columns, rows)) {
      const returned = await values(trx.insertInto('movements'))
        .onConflict((oc) =>
          oc
            .column('id')
            .doUpdateSet((eb) => Object.fromEntries(MOVEMENT.updated.map((c) => [c, eb.ref(`excluded.${c}`)])))
            .where((eb) =>
              eb.and([
                eb('movements.account', '=', eb.ref('excluded.account')),
                eb('movements.created_at', '=', eb.ref('excluded.created_at')),
                eb('movements.document', '<>', eb.ref('excluded.document')),
              ]),
            ),
        )
        .returning('id')
        .execute();
      for (const { id } of returned) written.add(id);
    }
    if (written.size < rows.length) {
      const stored = await trx
        .selectFrom('movements')
        .select(['id', 'account', 'created_at'])
        .where(
          'id',
          'in',
          rows.map((r) => r.id),
        )
        .execute();
      // The rows not written are unchanged, or would change their order (refused, and nothing is kept).
      const refused = firstOrderChange(batch, MOVEMENT_ORDER, new Map(stored.map((r) => [r.id, r])));
      if (refused) throw refused;
    }
    if (announce) {
      await recordMovementEvents(
        trx,
        rows
          .filter((r) => written.has(r.id))
          .map((r) => ({ account: r.account, movement_id: r.id, document: r.document })),
      );
    }
  });
}
