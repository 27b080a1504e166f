/**
 * Imports a feed that streams (standard input, or a file read once): lines are checked as they arrive and
 * written in batches, each batch one transaction, committed every `batchSize` records or, when following,
 * `batchMs` after its first record arrived, whichever comes first. Upserts by key make a replayed stream
 * change nothing twice. A bad line stops the import with its line number and nothing of its batch written;
 * with `skipInvalid` it is reported (refusals in line order) and the rest is written. A stop (the signal:
 * SIGTERM, SIGINT) ends reading, writes the batch read so far, and returns: only whole batches are written.
 *
 * With `retry`, a batch that fails because the database does not answer is kept and written again, whole,
 * until the database is back or the wait is over (operator/database-wait.ts): a commit whose outcome is
 * unknown is simply written again, which the upserts make harmless. Meanwhile the next batch fills and then
 * reading stops, so the input is read no further than a batch ahead (readline pauses its input with about a
 * thousand lines in hand): a pipe's writer blocks instead of filling memory.
 *
 * Reading goes on while a batch is written: the next batch is parsed while the database commits the last
 * (one write at a time, in order), and a line that arrives during a commit starts its batch's clock when it
 * arrives, not when the commit is over. (So with PostgreSQL, whose commits are waited for; SQLite's commits
 * run on this thread, so what arrives during one is read, and its clock started, when it ends.)
 */
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { Parsed } from '../domain/feeds.js';
import { OrderChange } from '../store/pages.js';
import { DatabaseGone, type DatabaseRetry } from './database-wait.js';
import { ImportConflict, orderProblem, StreamRefusal } from './stream-refusals.js';

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
  /** Writes a batch again while the database does not answer (none: its failure ends the import). */
  retry?: DatabaseRetry;
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

const linesOf = (from: number, to: number) => (from === to ? `line ${from}` : `lines ${from}–${to}`);

interface Numbered<T> {
  row: T;
  line: number;
}

export async function importStream<T>(
  input: Readable,
  parse: (line: string) => Parsed<T>,
  write: (batch: T[]) => Promise<void>,
  options: StreamOptions,
): Promise<StreamReport> {
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  const iterator = lines[Symbol.asyncIterator]();
  const started = Date.now();
  let batch: Numbered<T>[] = [];
  let batchStarted = 0;
  let lineNumber = 0;
  let written = 0;
  let writtenThrough = 0;
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

  const report = (line: number, problem: string) => {
    refused++;
    options.refused?.(line, problem);
  };
  // Refusals are reported in line order: a bad line comes after the records read before it, which the store
  // may still refuse when their batch is written; so its refusal waits until every record before it is
  // written (the batch being filled, and the one being written).
  let inFlight = false;
  const waiting: [number, string][] = [];
  const refuse = (line: number, problem: string) => {
    if (batch.length === 0 && !inFlight) report(line, problem);
    else waiting.push([line, problem]);
  };
  /** Reports the refusals waiting for no record before `line`. */
  const releaseBefore = (line: number) => {
    while (waiting.length > 0 && (waiting[0] as [number, string])[0] < line) {
      const [refusedLine, problem] = waiting.shift() as [number, string];
      report(refusedLine, problem);
    }
  };

  /**
   * Writes a batch; with `skipInvalid`, a record that would reorder a list is refused and the rest written,
   * otherwise the batch is refused whole (ImportConflict).
   */
  const writeBatch = async (handed: Numbered<T>[]) => {
    let rows = handed;
    while (rows.length > 0) {
      const records = rows.map((b) => b.row);
      try {
        if (options.retry) {
          const lines = linesOf((rows[0] as Numbered<T>).line, (rows.at(-1) as Numbered<T>).line);
          await options.retry(() => write(records), { to: `write ${lines}`, done: `${lines} written` });
        } else {
          await write(records);
        }
        break;
      } catch (error) {
        if (error instanceof DatabaseGone) {
          const before = written > 0 ? ` (the ${written} record(s) before were)` : '';
          throw error.with(`nothing from line ${(handed[0] as Numbered<T>).line} on was written${before}`);
        }
        if (!(error instanceof OrderChange)) throw error;
        const numbers = rows.map((b) => b.line);
        if (!options.skipInvalid) throw new ImportConflict(error, numbers, written);
        const line = numbers[error.index] as number;
        releaseBefore(line);
        report(
          line,
          orderProblem(error, (i) => numbers[i] as number),
        );
        rows = rows.filter((_, i) => i !== error.index);
      }
    }
    written += rows.length;
    // The reader is ahead of the writer: progress names the last line written, from which a resumed feed
    // may start again, not the last line read.
    writtenThrough = (handed.at(-1) as Numbered<T>).line;
    inFlight = false;
    releaseBefore(batch[0]?.line ?? Number.POSITIVE_INFINITY);
    const now = Date.now();
    if (options.progress && now - lastProgress >= 1000) {
      lastProgress = now;
      options.progress({
        written,
        perSecond: Math.round((written * 1000) / (now - started)),
        lastLine: writtenThrough,
      });
    }
  };

  // The batch being written, if any; its failure is kept to be thrown where the loop next looks.
  let writing: Promise<void> | null = null;
  let failure: { error: unknown } | null = null;
  let unwatched: Promise<'written'> | null = null;
  const settle = async () => {
    await writing;
    writing = null;
    if (failure) throw failure.error;
  };
  /** Hands the batch read so far to the writer, once the one before it is written. */
  const flush = async () => {
    await settle();
    if (batch.length === 0) return;
    const handed = batch;
    batch = [];
    inFlight = true;
    writing = writeBatch(handed).catch((error: unknown) => {
      failure = { error };
    });
    unwatched = writing.then(() => 'written' as const);
  };

  /** The next line; an input that fails while the loop waits for a write is thrown when the loop reads. */
  const nextLine = () => {
    const next = iterator.next();
    next.catch(() => {});
    return next;
  };
  let timer: NodeJS.Timeout | undefined;
  try {
    let pending = nextLine();
    for (;;) {
      const deadline = batch.length > 0 && options.batchMs !== null ? batchStarted + options.batchMs : null;
      const timeout =
        deadline === null
          ? null
          : new Promise<'flush'>((resolve) => {
              timer = setTimeout(() => resolve('flush'), Math.max(0, deadline - Date.now()));
            });
      // A write that fails is noticed at once, even while no line comes (following a quiet input).
      const racers: Promise<IteratorResult<string> | 'flush' | 'written'>[] = [pending];
      if (timeout) racers.push(timeout);
      if (unwatched) racers.push(unwatched);
      const next = await Promise.race(racers);
      clearTimeout(timer);
      if (next === 'written') {
        unwatched = null;
        if (failure) break;
        continue;
      }
      if (next === 'flush') {
        await flush();
        continue;
      }
      if (next.done || wasStopped) break;
      pending = nextLine();
      lineNumber++;
      // Lines already read come without a pause for I/O: while a batch is written, let the database's
      // answers in every few lines, so that the write's next statement goes out without waiting for the
      // parsing of a whole chunk of input.
      if (writing && lineNumber % 16 === 0) await new Promise(setImmediate);
      if (next.value.trim() === '') continue;
      const parsed = parse(next.value);
      if (!parsed.ok) {
        const problem = parsed.problems.join('; ');
        if (!options.skipInvalid) {
          // What was handed to the writer before this line is written (or fails on its own).
          await settle();
          throw new StreamRefusal(lineNumber, problem, batch[0]?.line ?? null, written);
        }
        refuse(lineNumber, problem);
        continue;
      }
      if (batch.length === 0) batchStarted = Date.now();
      batch.push({ row: parsed.row, line: lineNumber });
      if (batch.length >= options.batchSize) await flush();
    }
    await flush();
    await settle();
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', stop);
    lines.close();
    // Nothing is left writing once it returns or throws (a write's own failure is kept, never thrown here).
    await writing;
    // What was refused after the last record written (when a write failed, or the input: after the rest).
    releaseBefore(Number.POSITIVE_INFINITY);
  }
  return { lines: lineNumber, written, refused, stopped: wasStopped };
}
