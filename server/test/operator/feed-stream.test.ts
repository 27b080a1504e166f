/**
 * The streaming import's loop without a database: reading goes on while a batch is written, batches are
 * written one at a time and in order, a failed write is noticed without waiting for more input, and a bad
 * line waits for the batch before it; with a retry, a batch the database could not take is written again
 * whole while reading stops a batch ahead, and the wait ends in one sentence.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Parsed } from '../../src/domain/feeds.js';
import { DatabaseGone, databaseRetry } from '../../src/operator/database-wait.js';
import { importStream } from '../../src/operator/feed-stream.js';
import { ImportConflict, StreamRefusal } from '../../src/operator/stream-refusals.js';
import { OrderChange } from '../../src/store/pages.js';

const parse = (line: string): Parsed<number> =>
  /^\d+$/.test(line) ? { ok: true, row: Number(line) } : { ok: false, problems: ['not a number'] };

/** A write that holds each batch until the test lets it go. */
function heldWrites() {
  const batches: number[][] = [];
  const waiting: { resolve: () => void; reject: (error: Error) => void }[] = [];
  let active = 0;
  let mostActive = 0;
  return {
    batches,
    get mostActive() {
      return mostActive;
    },
    write: (batch: number[]) =>
      new Promise<void>((resolve, reject) => {
        active++;
        mostActive = Math.max(mostActive, active);
        waiting.push({
          resolve: () => {
            active--;
            batches.push(batch);
            resolve();
          },
          reject: (error) => {
            active--;
            reject(error);
          },
        });
      }),
    release: () => waiting.shift()?.resolve(),
    fail: (error: Error) => waiting.shift()?.reject(error),
    get held() {
      return waiting.length;
    },
  };
}

/** An import that skips bad lines, in batches of `batchSize` (none by time): its input, its result, the lines refused. */
function skipping(write: (batch: number[]) => Promise<void>, batchSize = 2) {
  const input = new PassThrough();
  const refused: number[] = [];
  const done = importStream(input, parse, write, {
    batchSize,
    batchMs: null,
    skipInvalid: true,
    refused: (line) => refused.push(line),
  });
  return { input, refused, done };
}

const until = async (condition: () => boolean) => {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((r) => setTimeout(r, 2));
  expect(condition()).toBe(true);
};

describe('importStream', () => {
  it('a stop while a batch is written lets that write end, writes the lines read since, and returns', async () => {
    const input = new PassThrough();
    const writes = heldWrites();
    const stop = new AbortController();
    const done = importStream(input, parse, writes.write, {
      batchSize: 2,
      batchMs: null,
      skipInvalid: false,
      signal: stop.signal,
    });
    input.write('1\n2\n3\n');
    await until(() => writes.held === 1);
    stop.abort();
    writes.release();
    await until(() => writes.held === 1);
    writes.release();
    await expect(done).resolves.toMatchObject({ lines: 3, written: 3, stopped: true });
    expect(writes.batches).toEqual([[1, 2], [3]]);
  });

  it('with skipInvalid, a record the store refuses for its order is reported with its line; the rest is written', async () => {
    const batches: number[][] = [];
    const refused: [number, string][] = [];
    const write = async (batch: number[]) => {
      const bad = batch.indexOf(13);
      if (bad >= 0) throw new OrderChange(bad, 'movement 13', 'created_at', 'then', 'now', null);
      batches.push(batch);
    };
    const input = new PassThrough();
    const done = importStream(input, parse, write, {
      batchSize: 3,
      batchMs: null,
      skipInvalid: true,
      refused: (line, problem) => refused.push([line, problem]),
    });
    input.end('11\n\n12\n13\n14\n');
    await expect(done).resolves.toMatchObject({ lines: 5, written: 3, refused: 1 });
    expect(batches).toEqual([[11, 12], [14]]);
    expect(refused).toEqual([
      [4, 'movement 13 is stored with created_at then, not now, and what orders a list does not change once stored'],
    ]);
  });

  it('with skipInvalid, refusals come in line order: a bad line read while a batch is written waits for it', async () => {
    const writes = heldWrites();
    const { input, refused, done } = skipping(writes.write);
    input.write('1\n2\n');
    await until(() => writes.held === 1);
    // Read while the batch of lines 1–2 is written: refused, but reported only after that batch.
    input.write('x\n4\n');
    await new Promise((r) => setTimeout(r, 20));
    expect(refused).toEqual([]);
    // The store refuses line 2 for its order: reported at once; the batch is written again without it.
    writes.fail(new OrderChange(1, 'movement 2', 'created_at', 'then', 'now', null));
    await until(() => writes.held === 1);
    expect(refused).toEqual([2]);
    writes.release();
    await until(() => refused.length === 2);
    expect(refused).toEqual([2, 3]);
    input.end('y\n');
    await until(() => writes.held === 1);
    writes.release();
    await expect(done).resolves.toMatchObject({ lines: 5, written: 2, refused: 3 });
    expect(refused).toEqual([2, 3, 5]);
    expect(writes.batches).toEqual([[1], [4]]);
  });

  it('with skipInvalid, a bad line waits for the records before it in the batch being filled', async () => {
    // Idle: line 2 is refused while line 1 waits for its batch, which the store then refuses.
    const { input, refused, done } = skipping(async (batch) => {
      if (batch.includes(1)) throw new OrderChange(batch.indexOf(1), 'movement 1', 'created_at', 'then', 'now', null);
    });
    input.end('1\nx\n3\n');
    await expect(done).resolves.toMatchObject({ lines: 3, written: 1, refused: 2 });
    expect(refused).toEqual([1, 2]);

    // And a bad line before a record the store refuses comes before it.
    const {
      input: file,
      refused: before,
      done: imported,
    } = skipping(async (batch) => {
      if (batch.includes(3)) throw new OrderChange(batch.indexOf(3), 'movement 3', 'created_at', 'then', 'now', null);
    }, 10);
    file.end('1\nx\n3\n4\ny\n');
    await expect(imported).resolves.toMatchObject({ lines: 5, written: 2, refused: 3 });
    expect(before).toEqual([2, 3, 5]);

    // With a write in flight: line 4 is read while lines 1–2 are written and line 3 waits in the next batch.
    const writes = heldWrites();
    const { input: stream, refused: inOrder, done: streamed } = skipping(writes.write);
    stream.write('1\n2\n');
    await until(() => writes.held === 1);
    stream.end('3\nx\n5\n');
    await new Promise((r) => setTimeout(r, 20));
    writes.release();
    await until(() => writes.held === 1);
    expect(inOrder).toEqual([]);
    writes.fail(new OrderChange(0, 'movement 3', 'created_at', 'then', 'now', null));
    await until(() => writes.held === 1);
    writes.release();
    await expect(streamed).resolves.toMatchObject({ lines: 5, written: 3, refused: 2 });
    expect(inOrder).toEqual([3, 4]);
    expect(writes.batches).toEqual([[1, 2], [5]]);
  });

  it('progress names the last line written, not the last line read', async () => {
    const input = new PassThrough();
    const writes = heldWrites();
    const progress: { written: number; lastLine: number }[] = [];
    const done = importStream(input, parse, writes.write, {
      batchSize: 2,
      batchMs: null,
      skipInvalid: false,
      progress: ({ written, lastLine }) => progress.push({ written, lastLine }),
    });
    input.write('1\n2\n3\n4\n');
    await until(() => writes.held === 1);
    // Progress is reported at most once a second: the first write ends after one.
    await new Promise((r) => setTimeout(r, 1050));
    writes.release();
    await until(() => progress.length === 1);
    expect(progress[0]).toEqual({ written: 2, lastLine: 2 });
    await until(() => writes.held === 1);
    writes.release();
    input.end();
    await done;
  });

  it('reads and checks the next lines while a batch is being written, and writes one batch at a time, in order', async () => {
    const input = new PassThrough();
    const writes = heldWrites();
    let parsed = 0;
    const done = importStream(
      input,
      (line) => {
        parsed++;
        return parse(line);
      },
      writes.write,
      { batchSize: 2, batchMs: null, skipInvalid: false },
    );
    input.write('1\n2\n');
    await until(() => writes.held === 1);
    input.write('3\n4\n5\n');
    // The first batch is still being written: the next batch is read and checked all the same, and waits.
    await until(() => parsed === 4);
    expect(writes.held).toBe(1);
    writes.release();
    await until(() => writes.held === 1);
    writes.release();
    input.end();
    await until(() => writes.held === 1);
    writes.release();
    const report = await done;
    expect(writes.batches).toEqual([[1, 2], [3, 4], [5]]);
    expect(writes.mostActive).toBe(1);
    expect(report).toMatchObject({ lines: 5, written: 5, refused: 0, stopped: false });
  });

  it('a failed write ends a following import at once, while its input stays open, and nothing after it is written', async () => {
    const input = new PassThrough();
    const writes = heldWrites();
    const done = importStream(input, parse, writes.write, { batchSize: 1000, batchMs: 5, skipInvalid: false });
    input.write('1\n2\n');
    await until(() => writes.held === 1);
    // No line comes after it, so no batch's time runs: only the write's own end can stop the import.
    writes.fail(new Error('the database went away'));
    await expect(done).rejects.toThrow('the database went away');
    // Lines that come later are not read, and no write starts after the failed one.
    input.write('3\n4\n');
    await new Promise((r) => setTimeout(r, 30));
    expect(writes.batches).toEqual([]);
    expect(writes.held).toBe(0);
  });

  it('a bad line is refused once the batch before it is written, which the refusal counts', async () => {
    const input = new PassThrough();
    const writes = heldWrites();
    const done = importStream(input, parse, writes.write, { batchSize: 2, batchMs: null, skipInvalid: false });
    const refusal = expect(done).rejects.toThrow(
      new StreamRefusal(4, 'not a number', 3, 2).message, // "line 4: …; nothing of lines 3–4 was written (the 2 record(s) before were)"
    );
    input.end('1\n2\n3\nx\n5\n');
    await until(() => writes.held === 1);
    writes.release();
    await refusal;
    expect(writes.batches).toEqual([[1, 2]]);
  });

  it('a line that arrives while a batch is written goes into the next batch, committed when its time is up', async () => {
    const input = new PassThrough();
    const writes = heldWrites();
    const done = importStream(input, parse, writes.write, { batchSize: 1000, batchMs: 20, skipInvalid: false });
    input.write('1\n');
    await until(() => writes.held === 1);
    // Arrives while the first batch is written: its batch is waiting, complete, when that write ends.
    input.write('2\n');
    await new Promise((r) => setTimeout(r, 40));
    writes.release();
    // Its time ran out during the first write: its batch is handed over as soon as that write ends, with
    // no timer of its own still to run (one turn of the event loop, no timer phase needed).
    await new Promise(setImmediate);
    expect(writes.held).toBe(1);
    writes.release();
    input.end();
    await expect(done).resolves.toMatchObject({ written: 2 });
    expect(writes.batches).toEqual([[1], [2]]);
  });
});

/** What node-postgres throws when nothing listens. */
const refused = () =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED', syscall: 'connect' });

/** A database that can be taken away: every write fails while it is down; the tries are counted. */
function flakyWrites() {
  const tries: number[][] = [];
  const batches: number[][] = [];
  const state = { down: false };
  return {
    tries,
    batches,
    state,
    write: async (batch: number[]) => {
      tries.push(batch);
      if (state.down) throw refused();
      batches.push(batch);
    },
  };
}

const retryWith = (waitMs: number, lines: string[]) =>
  databaseRetry({ waitMs, setting: '--retry-for', say: (_level, line) => lines.push(line), everyMs: 0 });

describe('importStream through an outage', () => {
  it('writes the batch again, whole and in order, once the database is back, and reads no more than a batch ahead meanwhile', async () => {
    // The stream's buffer set, not Node's default (16 KiB on Node 20, 64 KiB since 22), so that the
    // producer's 20,000 lines fill it on every line.
    const input = new PassThrough({ highWaterMark: 16 * 1024 });
    const writes = flakyWrites();
    const said: string[] = [];
    let parsed = 0;
    const done = importStream(
      input,
      (line) => {
        parsed++;
        return parse(line);
      },
      writes.write,
      { batchSize: 10, batchMs: 5, skipInvalid: false, retry: retryWith(60_000, said) },
    );
    input.write('1\n2\n3\n');
    await until(() => writes.batches.length === 1);
    writes.state.down = true;
    // The producer keeps writing through the outage: 20,000 lines, far more than the reader may hold.
    const total = 20_003;
    let offered = 3;
    let blocked = false;
    while (offered < total && !blocked) {
      const chunk = Array.from({ length: 100 }, (_, i) => offered + i + 1).join('\n');
      offered += 100;
      blocked = !input.write(`${chunk}\n`);
      await new Promise(setImmediate);
    }
    await until(() => writes.tries.length >= 3);
    await new Promise((r) => setTimeout(r, 100));
    // The reader stopped: the producer was told to wait (its writes buffered up to the stream's mark), and
    // the lines checked since the first batch are a batch being retried and a full one waiting, nothing more.
    expect(input.writableNeedDrain).toBe(true);
    expect(parsed - 3).toBeLessThanOrEqual(2 * 10);
    const retried = writes.tries.slice(1);
    expect(new Set(retried.map((b) => b.join()))).toEqual(new Set([retried[0]?.join()]));
    expect(said[0]).toBe(
      `the database is unavailable (connect ECONNREFUSED 127.0.0.1:5432); waiting up to 60 s (--retry-for) to write lines 4–${3 + (retried[0]?.length ?? 0)}`,
    );
    expect(said.slice(1).every((l) => l.startsWith('still waiting for the database after '))).toBe(true);
    writes.state.down = false;
    // Reading goes on; the rest of the input comes.
    for (; offered < total; offered += 100) {
      const chunk = Array.from({ length: 100 }, (_, i) => offered + i + 1).join('\n');
      if (!input.write(`${chunk}\n`)) await new Promise((r) => input.once('drain', r));
    }
    input.end();
    await expect(done).resolves.toMatchObject({ lines: total, written: total });
    expect(writes.batches.flat()).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    expect(said.at(-1)).toMatch(/^the database answers after \d+ s; lines 4–\d+ written$/);
  }, 30_000);

  it('a record the store refuses, or any other failure, is not retried: it ends the import as without a wait', async () => {
    const said: string[] = [];
    let tries = 0;
    const conflict = importStream(
      PassThrough.from(['1\n2\n']),
      parse,
      async () => {
        tries++;
        throw new OrderChange(1, 'movement 2', 'created_at', 'then', 'now', null);
      },
      { batchSize: 10, batchMs: null, skipInvalid: false, retry: retryWith(60_000, said) },
    );
    await expect(conflict).rejects.toBeInstanceOf(ImportConflict);
    const broken = importStream(
      PassThrough.from(['1\n']),
      parse,
      async () => {
        tries++;
        throw new Error('column "x" does not exist');
      },
      { batchSize: 10, batchMs: null, skipInvalid: false, retry: retryWith(60_000, said) },
    );
    await expect(broken).rejects.toThrow('column "x" does not exist');
    expect(tries).toBe(2);
    expect(said).toEqual([]);
  });

  it('past the wait, it ends in one sentence: how long it waited, from which line nothing was written', async () => {
    const writes = flakyWrites();
    const said: string[] = [];
    const input = new PassThrough();
    const done = importStream(input, parse, writes.write, {
      batchSize: 2,
      batchMs: null,
      skipInvalid: false,
      retry: retryWith(600, said),
    });
    input.write('1\n2\n');
    await until(() => writes.batches.length === 1);
    writes.state.down = true;
    input.write('3\n4\n5\n');
    const failure = await done.catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(DatabaseGone);
    expect((failure as Error).message).toBe(
      'the database is unavailable (connect ECONNREFUSED 127.0.0.1:5432) and did not come back within 1 s; ' +
        'nothing from line 3 on was written (the 2 record(s) before were)',
    );
    expect(writes.batches).toEqual([[1, 2]]);
    expect(writes.tries.length).toBeGreaterThan(2);
  });

  it('a stop while waiting ends the wait at once, saying so', async () => {
    const writes = flakyWrites();
    writes.state.down = true;
    const stop = new AbortController();
    const retry = databaseRetry({ waitMs: 60_000, setting: '--retry-for', say: () => {}, signal: stop.signal });
    const done = importStream(PassThrough.from(['1\n']), parse, writes.write, {
      batchSize: 2,
      batchMs: null,
      skipInvalid: false,
      signal: stop.signal,
      retry,
    });
    await until(() => writes.tries.length === 1);
    stop.abort();
    await expect(done).rejects.toThrow(
      /^the database is unavailable \(connect ECONNREFUSED 127\.0\.0\.1:5432\); stopped by a signal after waiting \d+ s for it; nothing from line 1 on was written$/,
    );
  });
});
