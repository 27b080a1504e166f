import type { Kysely } from 'kysely';
import { DOCUMENT_FORMAT, SAME_DOCUMENTS_AS } from './documents.js';
import { upsertMovements } from './movements.js';
import type { Database, MovementRecord, TradeRecord } from './schema.js';
import { upsertTrades } from './trades.js';

/**
 * Renders the documents of every movement and trade again when they were rendered in another format (or
 * never: rows written before documents existed). Batches of `batchSize` rows, each written back with the
 * import's own upsert (one statement, one transaction); safe to run from several instances at once (the
 * result is the same). Returns the number of rows rendered. Documents in a format documents.ts lists as the
 * same as the current one are only marked current.
 */
export async function refreshDocuments(db: Kysely<Database>, batchSize = 1000): Promise<number> {
  const stored = await db.selectFrom('document_format').select('format').where('id', '=', 1).executeTakeFirst();
  if (stored?.format === DOCUMENT_FORMAT) return 0;
  if (stored !== undefined && SAME_DOCUMENTS_AS.includes(stored.format)) {
    // Documents rendered the same, under another fingerprint (documents.ts): nothing to render.
    await db.updateTable('document_format').set({ format: DOCUMENT_FORMAT }).where('id', '=', 1).execute();
    return 0;
  }
  let rendered = 0;
  for (let after: string | null = null; ; ) {
    let query = db.selectFrom('movements').selectAll().orderBy('id').limit(batchSize);
    if (after !== null) query = query.where('id', '>', after);
    const rows = await query.execute();
    if (rows.length === 0) break;
    // A new rendering is not a change of the movement: no event.
    await upsertMovements(db, rows, { announce: false });
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
