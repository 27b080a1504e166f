/**
 * Every list and text of a feed record or of the catalogue has a maximum in the spec: the largest records it
 * allows are imported, and a record one over any bound is refused in one sentence naming its line (or entry)
 * and field, with nothing of its file written, on SQLite and PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import { CatalogueError } from '../../src/domain/catalogue.js';
import { importMovements, importTrades, loadCatalogueFile } from '../../src/operator/commands.js';
import { ImportError } from '../../src/operator/feed-import.js';
import { DATABASES } from '../support/databases.js';
import { importFixture } from '../support/feed-files.js';
import {
  BOUNDS,
  cataloguesOverBounds,
  largestMovement,
  largestTrade,
  movementsOverBounds,
  tradeOverBounds,
} from '../support/largest-records.js';
import { me } from '../support/signers.js';

describe.each(DATABASES)('bounds of imported records on %s', (kind) => {
  const fixture = importFixture(kind);
  const { file, feed, count } = fixture;
  const movement = (i: number) => largestMovement(i, me.address, 'BTC');

  it('stores the largest movement and trade the spec allows, and serves them whole', async () => {
    const largest = movement(1);
    expect(await importMovements(fixture.t.store, feed([largest]), 'W')).toEqual({ lines: 1, written: 1 });
    const stored = await fixture.t.store.db
      .selectFrom('movements')
      .select('document')
      .where('id', '=', largest.id)
      .executeTakeFirstOrThrow();
    const served = JSON.parse(stored.document);
    expect(served.transactions).toHaveLength(BOUNDS.transactions);
    expect(served.recipient_address).toBe(largest.recipient_address);
    const trade = largestTrade(1, me.address, 'WAVES', 'USDT');
    expect(await importTrades(fixture.t.store, feed([trade]), 'W')).toEqual({ lines: 1, written: 1 });
  });

  it('refuses a movement one over any bound, naming its line and field; nothing of its file is written', async () => {
    const before = await count('movements');
    for (const [field, over] of Object.entries(movementsOverBounds(movement(2)))) {
      const refusal = importMovements(fixture.t.store, feed([movement(3), over, movement(4)]), 'W');
      await expect(refusal, field).rejects.toBeInstanceOf(ImportError);
      await expect(refusal, field).rejects.toThrow(new RegExp(`line 2: ${field.replace(/[[\].]/g, '\\$&')}: `));
      expect(((await refusal.catch((e: unknown) => e)) as ImportError).badLines, field).toBe(1);
    }
    expect(await count('movements')).toBe(before);
  });

  it('refuses a trade whose id is over its bound, naming its line', async () => {
    const before = await count('trades');
    const over = tradeOverBounds(largestTrade(2, me.address, 'WAVES', 'USDT'));
    await expect(
      importTrades(fixture.t.store, feed([largestTrade(3, me.address, 'WAVES', 'USDT'), over.id]), 'W'),
    ).rejects.toThrow(`line 2: id: must have at most ${BOUNDS.tradeId} characters`);
    expect(await count('trades')).toBe(before);
  });

  it('refuses a catalogue one over any bound, naming the entry and field; nothing of it is written', async () => {
    const before = [await count('platforms'), await count('currencies')];
    const version = await fixture.t.store.db.selectFrom('catalogue_version').selectAll().execute();
    for (const [field, catalogue] of Object.entries(cataloguesOverBounds())) {
      const refusal = loadCatalogueFile(fixture.t.store, file(JSON.stringify(catalogue)));
      await expect(refusal, field).rejects.toBeInstanceOf(CatalogueError);
      const { problems } = (await refusal.catch((e: CatalogueError) => e)) as CatalogueError;
      expect(problems, field).toContainEqual(
        expect.stringMatching(new RegExp(`^${field.replace(/[[\]().]/g, '\\$&')}: must have at most `)),
      );
    }
    expect([await count('platforms'), await count('currencies')]).toEqual(before);
    expect(await fixture.t.store.db.selectFrom('catalogue_version').selectAll().execute()).toEqual(version);
  });
});
