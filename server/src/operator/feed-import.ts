/**
 * Imports an NDJSON feed: a first pass validates every line (and writes nothing if any is bad, reporting
 * each with its line number), a second pass upserts in batches, each batch in one transaction. A crash
 * leaves whole batches only, and re-running the import (upsert by id) completes it. A record that would
 * change what orders its list (store/pages.ts, OrderChange) stops the import at its batch, which is not
 * written.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Parsed } from '../domain/feeds.js';
import { OrderChange } from '../store/pages.js';

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

/** A record refused by the store because it changes what orders its list; one sentence, with its line. */
export class ImportConflict extends Error {
  constructor(change: OrderChange, lines: readonly number[], written: number) {
    const line = (index: number) => lines[index] as number;
    const against = change.earlier === null ? 'is stored with' : `has on line ${line(change.earlier)}`;
    const before = written > 0 ? ` (the ${written} record(s) before them were)` : '';
    super(
      `line ${line(change.index)}: ${change.subject} ${against} ${change.field} ${change.stored}, not ${change.given}, ` +
        `and what orders a list does not change once stored; nothing of lines ${line(0)}–${lines.at(-1)} was written${before}`,
    );
  }
}

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
  options: { batchSize?: number; progress?: (done: number, phase: 'checked' | 'written') => void } = {},
): Promise<ImportReport> {
  const batchSize = options.batchSize ?? 1000;
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
  let batch: T[] = [];
  let numbers: number[] = [];
  let written = 0;
  const writeBatch = async () => {
    try {
      await write(batch);
    } catch (error) {
      throw error instanceof OrderChange ? new ImportConflict(error, numbers, written) : error;
    }
    written += batch.length;
    batch = [];
    numbers = [];
  };
  for await (const { number, parsed } of records(file, parse)) {
    if (!parsed.ok) throw new Error('the file changed while it was imported');
    batch.push(parsed.row);
    numbers.push(number);
    if (batch.length === batchSize) {
      await writeBatch();
      if (written % 50_000 === 0) options.progress?.(written, 'written');
    }
  }
  if (batch.length > 0) await writeBatch();
  return { lines, written };
}
