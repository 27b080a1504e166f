/** `gateway movements import` and `gateway trades import`: a file checked whole, or a stream in batches. */
import { createReadStream } from 'node:fs';
import { loadConfig } from '../config.js';
import { importMovements, importTrades, type Progress, streamFeed } from '../operator/commands.js';
import { DEFAULT_BATCH } from '../operator/feed-import.js';
import { DEFAULT_RETRY_FOR } from './commands.js';
import { readingFile } from './failures.js';
import { EXIT, UsageError } from './usage.js';
import { commandRetry, readable, withStore } from './with-store.js';

const progress: Progress = (done, phase) => process.stderr.write(`  ${done.toLocaleString('en')} lines ${phase}\n`);

function integer(value: string | undefined, name: string, min: number, max: number, help: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}`, help);
  }
  return n;
}

/** Records per transaction of a followed stream: smaller batches, committed by time too, for latency. */
const FOLLOW_BATCH = 1000;

export async function importCommand(
  kind: 'movements' | 'trades',
  source: string,
  values: Record<string, string | boolean | undefined>,
  help: string,
): Promise<number> {
  const batchSize = integer(values['batch-size'] as string | undefined, 'batch-size', 1, 100_000, help);
  const batchMs = integer(values['batch-ms'] as string | undefined, 'batch-ms', 1, 3_600_000, help);
  const follow = values.follow === true;
  const skipInvalid = values['skip-invalid'] === true;
  const retryFor =
    integer(values['retry-for'] as string | undefined, 'retry-for', 0, 604_800, help) ?? DEFAULT_RETRY_FOR;
  if (follow && source !== '-') throw new UsageError('--follow reads standard input: give - as the source', help);
  if (batchMs !== undefined && !follow) throw new UsageError('--batch-ms goes with --follow', help);
  const config = loadConfig();
  const { chainId } = config;
  if (source !== '-') readable(source);
  const stop = new AbortController();
  const retry = commandRetry(retryFor * 1000, '--retry-for', stop.signal);
  if (source !== '-' && !skipInvalid) {
    await readingFile(source, () =>
      withStore(
        config,
        async (store) => {
          const report = await (kind === 'movements' ? importMovements : importTrades)(store, source, chainId, {
            batchSize,
            progress,
            retry,
          });
          // Said as soon as it is committed, not after the store is closed (which can wait on the database).
          console.log(`${kind}: ${report.written} record(s) of ${report.lines} line(s) imported from ${source}`);
        },
        true,
        retry,
      ),
    );
    return EXIT.done;
  }
  const input = source === '-' ? process.stdin : createReadStream(source, 'utf8');
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => stop.abort());
  const streamed = () =>
    withStore(
      config,
      (store) =>
        streamFeed(kind, store, input, chainId, {
          batchSize: batchSize ?? (follow ? FOLLOW_BATCH : DEFAULT_BATCH),
          batchMs: follow ? (batchMs ?? 200) : null,
          skipInvalid,
          signal: stop.signal,
          retry,
          refused: (line, problem) => process.stderr.write(`line ${line} refused: ${problem}\n`),
          progress: (p) =>
            process.stderr.write(
              `  ${p.written.toLocaleString('en')} written (${p.perSecond.toLocaleString('en')}/s), line ${p.lastLine}\n`,
            ),
        }),
      true,
      retry,
    );
  const report = source === '-' ? await streamed() : await readingFile(source, streamed);
  console.log(
    `${kind}: ${report.written} record(s) of ${report.lines} line(s) imported from ${source === '-' ? 'standard input' : source}` +
      (report.refused > 0 ? `, ${report.refused} refused` : '') +
      (report.stopped ? ' (stopped by a signal; the rest of the input was not read)' : ''),
  );
  return EXIT.done;
}
