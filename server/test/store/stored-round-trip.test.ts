/**
 * Every field of a stored record reaches the API, on SQLite and PostgreSQL: a movement and a trade with
 * every field of their schemas (made from the spec, test/support/record-samples.ts) are imported as an
 * operator imports them (`gateway movements import`, `gateway trades import`), found in their columns,
 * rendered again as a new document format would have them, and served; each field the declaration serves
 * (store/stored-records.ts) is in the answer under its name, with the record's value. A field dropped from
 * a stored document at run time is named.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMovement, parseTrade } from '../../src/domain/feeds.js';
import { demoFiles, importMovements, importTrades, loadCatalogueFile } from '../../src/operator/commands.js';
import { refreshDocuments } from '../../src/store/refresh-documents.js';
import { MOVEMENT, TRADE } from '../../src/store/stored-records.js';
import { takeViolations } from '../support/answers.js';
import { signIn, type TestApp, testApp } from '../support/app.js';
import { DATABASES } from '../support/databases.js';
import { fieldsOf, sampleRecord } from '../support/record-samples.js';
import { me } from '../support/signers.js';

type Fields = Record<string, { column: string | null; served: { as: string } | null }>;
type Json = Record<string, unknown>;

/** A record's value as the answer serves it: decimals as numbers, times in UTC with milliseconds. */
function served(value: unknown, answered: unknown): unknown {
  if (typeof value === 'string' && typeof answered === 'number') return Number(value);
  if (typeof value === 'string' && /^\d{4}-\d\d-\d\dT.*(Z|[+-]\d\d:\d\d)$/.test(value)) {
    return new Date(value).toISOString();
  }
  return value;
}

/** The record fields the declaration serves that are not in `answer` as the record has them, named. */
function unreached(fields: Fields, record: Json, answer: Json): string[] {
  const missing: string[] = [];
  for (const [field, { served: as }] of Object.entries(fields)) {
    if (as === null) continue;
    const want = served(record[field], answer[as.as]);
    if (!(as.as in answer)) missing.push(`${field}: no ${as.as} in the answer`);
    else if (!isDeepStrictEqual(answer[as.as], want)) {
      missing.push(`${field}: ${as.as} is ${JSON.stringify(answer[as.as])}, not ${JSON.stringify(want)}`);
    }
  }
  const servedAs = new Set(Object.values(fields).flatMap((f) => (f.served ? [f.served.as] : [])));
  for (const key of Object.keys(answer)) if (!servedAs.has(key)) missing.push(`${key}: served, but not declared`);
  return missing;
}

describe.each(DATABASES)('every field of a stored record reaches its answer on %s', (kind) => {
  let t: TestApp;
  let dir: string;
  let headers: Record<string, string>;
  const movement = sampleRecord('MovementRecord', { account: me.address });
  const trade = sampleRecord('TradeRecord', { address: me.address });
  const movementUrl = `/v1/movements/${movement.id}`;
  const tradesUrl = `/v1/addresses/${me.address}/trades/${trade.amount_currency_id}/${trade.price_currency_id}`;

  const answer = async (url: string): Promise<Json> => {
    const response = await t.app.inject({ url, headers });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as Json & { items?: Json[] };
    // The store holds the one movement and the one trade: a list answers that one (whatever its id reads).
    if (body.items) expect(body.items).toHaveLength(1);
    return body.items?.[0] ?? body;
  };

  beforeAll(async () => {
    t = await testApp(kind);
    await loadCatalogueFile(t.store, demoFiles.catalogue);
    dir = mkdtempSync(path.join(tmpdir(), 'gateway-round-trip-'));
    writeFileSync(path.join(dir, 'movements.ndjson'), `${JSON.stringify(movement)}\n`);
    writeFileSync(path.join(dir, 'trades.ndjson'), `${JSON.stringify(trade)}\n`);
    await importMovements(t.store, path.join(dir, 'movements.ndjson'), t.config.chainId);
    await importTrades(t.store, path.join(dir, 'trades.ndjson'), t.config.chainId);
    headers = { authorization: `Bearer ${(await signIn(t.app, me)).access_token}` };
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the samples hold every field of their schemas, and the declarations name each of them', () => {
    expect(Object.keys(movement)).toEqual(fieldsOf('MovementRecord'));
    expect(Object.keys(trade)).toEqual(fieldsOf('TradeRecord'));
    expect(Object.keys(MOVEMENT.fields).sort()).toEqual(fieldsOf('MovementRecord').sort());
    expect(Object.keys(TRADE.fields).sort()).toEqual(fieldsOf('TradeRecord').sort());
  });

  it('the import stores every declared column, as the record reads', async () => {
    const decimals = new Map([[movement.currency_id, 8]]);
    const parsedMovement = parseMovement(JSON.stringify(movement), t.config.chainId, (id) => decimals.get(id));
    const parsedTrade = parseTrade(JSON.stringify(trade), t.config.chainId);
    if (!parsedMovement.ok || !parsedTrade.ok) throw new Error('the samples are refused');
    const movementRow = await t.store.db
      .selectFrom('movements')
      .selectAll()
      .where('id', '=', parsedMovement.row.id)
      .executeTakeFirstOrThrow();
    const tradeRow = await t.store.db.selectFrom('trades').selectAll().where('id', '=', parsedTrade.row.id).execute();
    expect(tradeRow).toHaveLength(1);
    for (const [row, parsed, columns] of [
      [movementRow, parsedMovement.row, MOVEMENT.columns],
      [tradeRow[0], parsedTrade.row, TRADE.columns],
    ] as const) {
      for (const column of columns.filter((c) => c !== 'document')) {
        const [stored, read] = [(row as Json)[column], (parsed as Json)[column]];
        expect(stored ?? null, column).not.toBeNull();
        expect(stored, column).toEqual(read);
      }
    }
  });

  it('rendered again (a new document format), every served field reaches the answers with its value', async () => {
    await t.store.db.updateTable('movements').set({ document: '{}' }).execute();
    await t.store.db.updateTable('trades').set({ document: '{}' }).execute();
    await t.store.db.updateTable('document_format').set({ format: 'an older format' }).where('id', '=', 1).execute();
    expect(await refreshDocuments(t.store.db)).toBe(2);

    expect(unreached(MOVEMENT.fields, movement, await answer(movementUrl))).toEqual([]);
    expect(unreached(MOVEMENT.fields, movement, await answer('/v1/movements'))).toEqual([]);
    expect(unreached(TRADE.fields, trade, await answer(tradesUrl))).toEqual([]);
  });

  it('mutation: each served field dropped at run time from a stored document is named', async () => {
    for (const [table, fields, record, url] of [
      ['movements', MOVEMENT.fields, movement, movementUrl],
      ['trades', TRADE.fields, trade, tradesUrl],
    ] as const) {
      const { document } = await t.store.db.selectFrom(table).select('document').executeTakeFirstOrThrow();
      for (const [field, { served: as }] of Object.entries(fields as Fields)) {
        if (as === null) continue;
        const { [as.as]: _dropped, ...rest } = JSON.parse(document) as Json;
        await t.store.db
          .updateTable(table)
          .set({ document: JSON.stringify(rest) })
          .execute();
        const found = unreached(fields as Fields, record, await answer(url));
        // The checker of answers names a required field too; an optional one only this test would.
        takeViolations();
        expect(found, field).toEqual([`${field}: no ${as.as} in the answer`]);
      }
      await t.store.db.updateTable(table).set({ document }).execute();
      expect(unreached(fields as Fields, record, await answer(url))).toEqual([]);
    }
  });
});
