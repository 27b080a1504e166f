/**
 * Imports a feed that streams (standard input, or a file read once): lines are checked as they arrive and
 * written in batches, each batch one transaction, committed every `batchSize` records or, when following,
 * `batchMs` after its first record, whichever comes first. Upserts by key make a replayed stream change
 * nothing twice. A bad line stops the import with its line number and nothing of its batch written; with
 * `skipInvalid` it is reported and the rest is written. A stop (the signal: SIGTERM, SIGINT) ends reading,
 * writes the batch read so far, and returns: only whole batches are ever written.
 */
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { Parsed } from '../domain/feeds.js';
import { OrderChange } from '../store/pages.js';

export interface StreamOptions {
  batchSize: number;
  /** When following: commit a batch at most this long after its first record (null: by size only). */
  batchMs: number | null;
  skipInvalid: boolean;
  signal?: AbortSignal;
  /** Each refused line (with `skipInvalid`). */
  refused?(line: number, problem: string): void;
  /** Progress, at most once a second. */
  progress?(progress: StreamProgress): void;
}

export interface StreamProgress {
  written: number;
  perSecond: number;
  lastLine: number;
}

export interface StreamReport {
  lines: number;
  written: number;
  refused: number;
  /** Whether the signal stopped it before its input ended. */
  stopped: boolean;
}

/** A line refused while streaming: one sentence, with its line number and what was not written. */
export class StreamRefusal extends Error {
  constructor(line: number, problem: string, batchFrom: number | null, written: number) {
    const batch = batchFrom === null || batchFrom === line ? `line ${line}` : `lines ${batchFrom}–${line}`;
    super(
      `line ${line}: ${problem}; nothing of ${batch} was written` +
        (written > 0 ? ` (the ${written} record(s) before were)` : ''),
    );
  }
}

const orderProblem = (change: OrderChange) =>
  `${change.subject} is stored with ${change.field} ${change.stored}, not ${change.given}, and what orders a list does not change once stored`;

export async function importStream<T>(
  input: Readable,
  parse: (line: string) => Parsed<T>,
  write: (batch: T[]) => Promise<void>,
  options: StreamOptions,
): Promise<StreamReport> {
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  const iterator = lines[Symbol.asyncIterator]();
  const started = Date.now();
  let batch: { row: T; line: number }[] = [];
  let batchStarted = 0;
  let lineNumber = 0;
  let written = 0;
  let refused = 0;
  let lastProgress = started;

  // A stop closes the reader: what it has read ends the input. (Racing every read against one long-lived
  // promise instead would keep a reaction, and the line it carried, per read: memory growing with the input.)
  let wasStopped = false;
  const stop = () => {
    wasStopped = true;
    lines.close();
  };
  if (options.signal?.aborted) stop();
  else options.signal?.addEventListener('abort', stop, { once: true });

  const report = (problem: string, line: number) => {
    if (!options.skipInvalid) throw new StreamRefusal(line, problem, batch[0]?.line ?? null, written);
    refused++;
    options.refused?.(line, problem);
  };

  /** Writes the batch; with `skipInvalid`, a record that would reorder a list is dropped and the rest retried. */
  const flush = async () => {
    while (batch.length > 0) {
      try {
        await write(batch.map((b) => b.row));
        break;
      } catch (error) {
        if (!(error instanceof OrderChange)) throw error;
        const culprit = batch[error.index] as { line: number };
        report(orderProblem(error), culprit.line);
        batch = batch.filter((_, i) => i !== error.index);
      }
    }
    written += batch.length;
    batch = [];
    const now = Date.now();
    if (options.progress && now - lastProgress >= 1000) {
      lastProgress = now;
      options.progress({ written, perSecond: Math.round((written * 1000) / (now - started)), lastLine: lineNumber });
    }
  };

  let pending = iterator.next();
  for (;;) {
    const deadline = batch.length > 0 && options.batchMs !== null ? batchStarted + options.batchMs : null;
    let timer: NodeJS.Timeout | undefined;
    const timeout =
      deadline === null
        ? null
        : new Promise<'flush'>((resolve) => {
            timer = setTimeout(() => resolve('flush'), Math.max(0, deadline - Date.now()));
          });
    const next = timeout ? await Promise.race([pending, timeout]) : await pending;
    clearTimeout(timer);
    if (next === 'flush') {
      await flush();
      continue;
    }
    if (next.done || wasStopped) break;
    pending = iterator.next();
    lineNumber++;
    if (next.value.trim() === '') continue;
    const parsed = parse(next.value);
    if (!parsed.ok) {
      report(parsed.problems.join('; '), lineNumber);
      continue;
    }
    if (batch.length === 0) batchStarted = Date.now();
    batch.push({ row: parsed.row, line: lineNumber });
    if (batch.length >= options.batchSize) await flush();
  }
  await flush();
  options.signal?.removeEventListener('abort', stop);
  lines.close();
  return { lines: lineNumber, written, refused, stopped: wasStopped };
}
