/**
 * Imports an NDJSON feed file: a first pass validates every line (and writes nothing if any is bad, reporting
 * each with its line number), a second pass reads it again as a stream (operator/feed-stream.ts) and upserts
 * in batches, each batch in one transaction, the next batch read while the last is written. A crash leaves
 * whole batches only, and re-running the import (upsert by id) completes it. A record that would change what
 * orders its list (store/pages.ts, OrderChange) stops the import at its batch, which is not written.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Parsed } from '../domain/feeds.js';
import type { DatabaseRetry } from './database-wait.js';
import { importStream } from './feed-stream.js';

export interface ImportReport {
  lines: number;
  written: number;
}

export class ImportError extends Error {
  constructor(
    readonly problems: string[],
    readonly badLines: number,
  ) {
    super(`${badLines} bad line(s); nothing was written:\n  ${problems.join('\n  ')}`);
  }
}

/**
 * Records per transaction. A commit costs much the same whatever its size (SQLite writes out every page
 * the batch touched, and ids are random, so a batch touches pages all over the indexes): larger batches
 * import faster, while another writer (a sign-in) waits for at most one batch. 5,000 was the knee in
 * bench/README.md's measurements; a followed stream commits smaller ones (cli.ts).
 */
export const DEFAULT_BATCH = 5000;

const MAX_REPORTED = 50;

async function* records<T>(file: string, parse: (line: string) => Parsed<T>) {
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Number.POSITIVE_INFINITY });
  let number = 0;
  for await (const line of lines) {
    number++;
    if (line.trim() === '') continue;
    yield { number, parsed: parse(line) };
  }
}

export async function importFeed<T>(
  file: string,
  parse: (line: string) => Parsed<T>,
  write: (batch: T[]) => Promise<void>,
  options: {
    batchSize?: number;
    progress?: (done: number, phase: 'checked' | 'written') => void;
    /** Writes a batch again while the database does not answer (feed-stream.ts). */
    retry?: DatabaseRetry;
  } = {},
): Promise<ImportReport> {
  const problems: string[] = [];
  let bad = 0;
  let lines = 0;
  for await (const { number, parsed } of records(file, parse)) {
    lines++;
    if (!parsed.ok) {
      bad++;
      if (problems.length < MAX_REPORTED) problems.push(`line ${number}: ${parsed.problems.join('; ')}`);
    }
    if (lines % 50_000 === 0) options.progress?.(lines, 'checked');
  }
  if (bad > 0) {
    if (bad > problems.length) problems.push(`… and ${bad - problems.length} more`);
    throw new ImportError(problems, bad);
  }
  let reported = 0;
  const report = await importStream(createReadStream(file, 'utf8'), parse, write, {
    batchSize: options.batchSize ?? DEFAULT_BATCH,
    batchMs: null,
    skipInvalid: false,
    retry: options.retry,
    progress: ({ written }) => {
      for (; reported + 50_000 <= written; reported += 50_000) options.progress?.(reported + 50_000, 'written');
    },
  });
  return { lines, written: report.written };
}
