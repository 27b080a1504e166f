/** What the operator commands do, without the command line: load a catalogue, import feeds, the demo. */
import { readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { ChainId } from '@gateway/ledger';
import { parseCatalogue } from '../domain/catalogue.js';
import { parseMovement, parseTrade } from '../domain/feeds.js';
import { applyCatalogue } from '../store/catalogue.js';
import { upsertMovements } from '../store/movements.js';
import type { MovementRecord, TradeRecord } from '../store/schema.js';
import type { Store } from '../store/store.js';
import { upsertTrades } from '../store/trades.js';
import type { DatabaseRetry } from './database-wait.js';
import { type ImportReport, importFeed } from './feed-import.js';
import { importStream, type StreamOptions, type StreamReport } from './feed-stream.js';

export type Progress = (done: number, phase: 'checked' | 'written') => void;

/** Options of a file import: records per transaction, progress, and the wait through an outage. */
export interface FileImportOptions {
  batchSize?: number;
  progress?: Progress;
  retry?: DatabaseRetry;
}

export async function loadCatalogueFile(store: Store, file: string): Promise<void> {
  await applyCatalogue(store.db, parseCatalogue(readFileSync(file, 'utf8')));
}

/** How a feed's lines are read and written: movements (amounts checked against the catalogue's decimals). */
async function movementFeed(store: Store, chainId: ChainId, retry?: DatabaseRetry) {
  const read = () => store.db.selectFrom('currencies').select(['id', 'decimals']).execute();
  const currencies = await (retry ? retry(read, { to: 'read the currencies', done: 'currencies read' }) : read());
  const decimals = new Map(currencies.map((c) => [c.id, c.decimals]));
  return {
    parse: (line: string) => parseMovement(line, chainId, (id) => decimals.get(id)),
    write: (batch: MovementRecord[]) => upsertMovements(store.db, batch),
  };
}

const tradeFeed = (store: Store, chainId: ChainId) => ({
  parse: (line: string) => parseTrade(line, chainId),
  write: (batch: TradeRecord[]) => upsertTrades(store.db, batch),
});

export async function importMovements(
  store: Store,
  file: string,
  chainId: ChainId,
  options: FileImportOptions = {},
): Promise<ImportReport> {
  const feed = await movementFeed(store, chainId, options.retry);
  return importFeed(file, feed.parse, feed.write, options);
}

export function importTrades(
  store: Store,
  file: string,
  chainId: ChainId,
  options: FileImportOptions = {},
): Promise<ImportReport> {
  const feed = tradeFeed(store, chainId);
  return importFeed(file, feed.parse, feed.write, options);
}

/** Imports a stream of movement or trade lines (operator/feed-stream.ts). */
export async function streamFeed(
  kind: 'movements' | 'trades',
  store: Store,
  input: Readable,
  chainId: ChainId,
  options: StreamOptions,
): Promise<StreamReport> {
  if (kind === 'movements') {
    const feed = await movementFeed(store, chainId, options.retry);
    return importStream(input, feed.parse, feed.write, options);
  }
  const feed = tradeFeed(store, chainId);
  return importStream(input, feed.parse, feed.write, options);
}

/** The demo exchange shipped in server/demo (catalogue, movements and trades of the demo account). */
export const demoFiles = {
  catalogue: fileURLToPath(new URL('../../demo/catalogue.yaml', import.meta.url)),
  movements: fileURLToPath(new URL('../../demo/movements.ndjson', import.meta.url)),
  trades: fileURLToPath(new URL('../../demo/trades.ndjson', import.meta.url)),
};

/** Loads the demo exchange when the store has no platform yet; returns whether it did. */
export async function loadDemoIfEmpty(store: Store, chainId: ChainId): Promise<boolean> {
  const any = await store.db.selectFrom('platforms').select('id').limit(1).executeTakeFirst();
  if (any) return false;
  await loadCatalogueFile(store, demoFiles.catalogue);
  if (chainId === 'W') {
    await importMovements(store, demoFiles.movements, chainId);
    await importTrades(store, demoFiles.trades, chainId);
  }
  return true;
}
