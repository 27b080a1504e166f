#!/usr/bin/env node
/**
 * `gateway`: the operator's command line. `gateway help` lists the commands, `gateway help COMMAND` (or
 * `gateway COMMAND --help`) describes one. Errors are one sentence on standard error (a stack trace only
 * with LOG_LEVEL=debug); the exit codes are in EXIT_CODES. Configuration comes from the environment (see
 * .env.example).
 */
import { accessSync, constants, createReadStream, existsSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type Config, ConfigError, loadConfig } from './config.js';
import { CatalogueError } from './domain/catalogue.js';
import { importMovements, importTrades, loadCatalogueFile, type Progress, streamFeed } from './operator/commands.js';
import { DatabaseGone, type DatabaseRetry, databaseRetry } from './operator/database-wait.js';
import { DEFAULT_BATCH, ImportError } from './operator/feed-import.js';
import { ImportConflict, StreamRefusal } from './operator/feed-stream.js';
import { readStatus, statusLines, unansweredStatus } from './operator/status.js';
import { CatalogueConflict } from './store/catalogue.js';
import { DatabaseAhead, MigrationMismatch } from './store/migrator.js';
import { isPostgresUrl, openStore, type Store, sqlitePath } from './store/store.js';
import { databaseUnavailable } from './store/unavailable.js';
import { startTracing, TracingConfigError } from './tracing.js';

const EXIT = { done: 0, invalidInput: 1, usage: 2, databaseUnavailable: 3 } as const;
const EXIT_CODES = `exit codes:
  0  done
  1  invalid input (a file, a line, the catalogue; nothing of what was refused was written), a database
     migrated by a newer release (migrate) or whose migrations do not fit this release, or another failure
  2  usage or configuration error
  3  the database is unavailable`;

interface Command {
  /** Words that name it: `movements import`. */
  name: string;
  args: string;
  description: string;
  options: Record<string, { type: 'string' | 'boolean'; help: string }>;
  details?: string;
}

/** How long an import waits for a database that does not answer, seconds: a restart or a fail-over. */
const DEFAULT_RETRY_FOR = 300;

const BATCH_OPTIONS: Command['options'] = {
  'batch-size': { type: 'string', help: 'records per transaction, 1 to 100000 (default 5000; 1000 with --follow)' },
  follow: {
    type: 'boolean',
    help: 'keep reading standard input until it ends or SIGTERM/SIGINT, committing a batch at least every --batch-ms',
  },
  'batch-ms': { type: 'string', help: 'with --follow: the longest a record waits to be committed, ms (default 200)' },
  'skip-invalid': { type: 'boolean', help: 'write the valid records, reporting each refused line on standard error' },
  'retry-for': {
    type: 'string',
    help: `while the database does not answer, retry the batch for up to N seconds (default ${DEFAULT_RETRY_FOR}; 0: exit 3 at once)`,
  },
};

const feedDetails = (
  kind: string,
  record: string,
) => `FILE is NDJSON, one ${record} record a line (the spec's feed schema); - reads standard input.
Records are upserted by key, so importing a file or a stream again changes nothing twice. A file is checked
whole first: one bad line and nothing is written. A stream (-) is written in batches as it arrives, each one
transaction: a bad line stops it with its line number and nothing of its batch written (exit 1), unless
--skip-invalid. SIGTERM or SIGINT finishes the current batch and exits 0. Progress goes to standard error
at most once a second.

While the database does not answer (stopped, restarting, unreachable), the batch being written is kept and
retried with backoff for up to --retry-for seconds, and reading stops a batch ahead (the writer of a pipe
waits); standard error says when the database is lost, every few seconds while it stays away, and when the
batch is written. Past that time: exit 3, saying from which line nothing was written.

  bridge | gateway ${kind} import - --follow`;

const COMMANDS: Command[] = [
  {
    name: 'serve',
    args: '',
    description: 'serve the API on HOST:PORT',
    options: { demo: { type: 'boolean', help: 'load the demo exchange into an empty database' } },
    details:
      'Waits up to DATABASE_WAIT_SECONDS for a database that does not answer yet. On a database a newer release\n' +
      'migrated, it serves without migrating, and says so in one line.',
  },
  {
    name: 'migrate',
    args: '',
    description: 'apply pending database migrations',
    options: {},
    details:
      'Waits up to DATABASE_WAIT_SECONDS for a database that does not answer yet. On a database a newer release\n' +
      "migrated, nothing is applied and it exits 1: run the newer release's migrate. This release still serves\n" +
      'on that database (migrations are expand-only).',
  },
  {
    name: 'status',
    args: '',
    description: 'the database, its migration, the catalogue version, the signing keys and what is stored',
    options: { json: { type: 'boolean', help: 'as JSON' } },
    details: 'Exits 3 when the database does not answer.',
  },
  {
    name: 'catalogue load',
    args: 'FILE',
    description: 'load platforms, currencies, terms and staking yields (YAML or JSON)',
    options: {},
    details:
      'The file is checked whole and applied in one transaction: a bad entry is named and nothing changes.\n' +
      'Entries missing from the file are kept (a load never deletes). Each load bumps the catalogue version,\n' +
      'which every running instance reloads.',
  },
  {
    name: 'movements import',
    args: 'FILE|-',
    description: 'import movements (NDJSON) from a file or standard input',
    options: BATCH_OPTIONS,
    details: feedDetails('movements', 'movement'),
  },
  {
    name: 'trades import',
    args: 'FILE|-',
    description: 'import trades (NDJSON) from a file or standard input',
    options: BATCH_OPTIONS,
    details: feedDetails('trades', 'trade'),
  },
  { name: 'help', args: '[COMMAND]', description: 'describe the commands, or one', options: {} },
];

const usageOf = (c: Command) => `gateway ${c.name}${c.args ? ` ${c.args}` : ''}`;

function generalHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => usageOf(c).length));
  return [
    'usage: gateway COMMAND [options]',
    '',
    ...COMMANDS.map((c) => `  ${usageOf(c).padEnd(width)}  ${c.description}`),
    '',
    'gateway help COMMAND, or gateway COMMAND --help, describes one. Configuration comes from the environment',
    '(DATABASE_URL, DATA_DIR, ...; see .env.example).',
    '',
    EXIT_CODES,
  ].join('\n');
}

function commandHelp(command: Command): string {
  const options = Object.entries(command.options);
  const width = Math.max(0, ...options.map(([name, o]) => `--${name}${o.type === 'string' ? ' N' : ''}`.length));
  return [
    `usage: ${usageOf(command)}${options.length > 0 ? ' [options]' : ''}`,
    '',
    `${command.description[0]?.toUpperCase()}${command.description.slice(1)}.`,
    ...(command.details ? ['', command.details] : []),
    ...(options.length > 0
      ? [
          '',
          'options:',
          ...options.map(([name, o]) => `  ${`--${name}${o.type === 'string' ? ' N' : ''}`.padEnd(width)}  ${o.help}`),
        ]
      : []),
    '',
    EXIT_CODES,
  ].join('\n');
}

class UsageError extends Error {
  constructor(
    message: string,
    readonly help: string,
  ) {
    super(message);
  }
}

/** The command named by the first words of `words`, and the rest. */
function find(words: string[]): { command: Command; rest: string[] } | null {
  for (const command of COMMANDS) {
    const name = command.name.split(' ');
    if (name.every((w, i) => words[i] === w)) return { command, rest: words.slice(name.length) };
  }
  return null;
}

/** Fails, as the file system would, unless `file` is a file this process can read. */
function readable(file: string): void {
  if (statSync(file).isDirectory()) {
    throw Object.assign(new Error(`EISDIR: ${file}`), { code: 'EISDIR', path: file });
  }
  accessSync(file, constants.R_OK);
}

/**
 * Runs against the configured database, migrated first unless told otherwise; with `retry`, a database that
 * does not answer yet is waited for. A database a newer release migrated is used as it is (its schema is
 * this release's and more), said in one line on standard error.
 */
async function withStore<T>(
  config: Config,
  run: (store: Store) => Promise<T>,
  migrateFirst = true,
  retry?: DatabaseRetry,
): Promise<T> {
  const store = openStore(config.databaseUrl, { poolSize: 2 });
  try {
    if (migrateFirst) {
      const migrate = () =>
        store.migrate().catch((error: unknown) => {
          if (!(error instanceof DatabaseAhead)) throw error;
          process.stderr.write(`${error.notice('working')}\n`);
          return [];
        });
      await (retry ? retry(migrate, { to: 'check its migrations', done: 'migrations checked' }) : migrate());
    }
    return await run(store);
  } finally {
    await store.close();
  }
}

const progress: Progress = (done, phase) => process.stderr.write(`  ${done.toLocaleString('en')} lines ${phase}\n`);

/** Waiting for the database, said on standard error like the progress. */
const commandRetry = (waitMs: number, setting: string, signal?: AbortSignal) =>
  databaseRetry({ waitMs, setting, signal, say: (_level, line) => process.stderr.write(`  ${line}\n`) });

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

async function importCommand(
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
    const report = await readingFile(source, () =>
      withStore(
        config,
        (store) =>
          (kind === 'movements' ? importMovements : importTrades)(store, source, chainId, {
            batchSize,
            progress,
            retry,
          }),
        true,
        retry,
      ),
    );
    console.log(`${kind}: ${report.written} record(s) of ${report.lines} line(s) imported from ${source}`);
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

/** What node's argument parser refused, in the CLI's words (its own name a value "ambiguous", say). */
function optionProblem(error: Error & { code?: string }): string {
  const option = /'(--?[\w-]+)/.exec(error.message)?.[1];
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option) return `unknown option ${option}`;
  if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option) {
    // A value starting with '-' is taken for an option: `--batch-ms -5`.
    return `${option} needs a value${/ambiguous/.test(error.message) ? ' (not one starting with -)' : ''}`;
  }
  return error.message.split('\n')[0] ?? 'bad options';
}

async function main(argv: string[]): Promise<number> {
  const words = argv.filter((a) => !a.startsWith('-') || a === '-');
  const found = find(words);
  if (words[0] === 'help' || (!found && (argv.includes('--help') || argv.includes('-h')))) {
    const topic = words[0] === 'help' ? words.slice(1) : words;
    const about = find(topic);
    if (topic.length > 0 && !about) throw new UsageError(`unknown command: ${topic.join(' ')}`, generalHelp());
    console.log(about && about.command.name !== 'help' ? commandHelp(about.command) : generalHelp());
    return EXIT.done;
  }
  if (!found) {
    const group = COMMANDS.filter((c) => words[0] !== undefined && c.name.startsWith(`${words[0]} `));
    const message = words.length === 0 ? 'no command given' : `unknown command: ${words.join(' ')}`;
    const help =
      group.length > 0 ? group.map((c) => `  ${usageOf(c).padEnd(32)}  ${c.description}`).join('\n') : generalHelp();
    throw new UsageError(message, help);
  }
  const { command } = found;
  const help = commandHelp(command);
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        ...Object.fromEntries(Object.entries(command.options).map(([name, o]) => [name, { type: o.type }])),
        help: { type: 'boolean' },
      },
    });
  } catch (error) {
    throw new UsageError(optionProblem(error as Error & { code?: string }), help);
  }
  const { values } = parsed;
  if (values.help) {
    console.log(help);
    return EXIT.done;
  }
  const rest = find(parsed.positionals)?.rest ?? [];
  const expected = command.args === '' ? 0 : 1;
  if (rest.length !== expected) {
    throw new UsageError(
      expected === 0 ? `gateway ${command.name} takes no argument` : `gateway ${command.name} needs ${command.args}`,
      help,
    );
  }
  const [argument = ''] = rest;
  switch (command.name) {
    case 'serve': {
      const config = loadConfig();
      // Before the server is loaded: tracing instruments the database and Redis clients as it starts.
      const tracing = await startTracing();
      // Loaded only to serve: the server (Fastify, its plugins, the spec) is most of the command's start-up.
      const { startServer } = await import('./server.js');
      await startServer(config, { demo: values.demo === true, tracing });
      return -1;
    }
    case 'migrate': {
      const config = loadConfig();
      const retry = commandRetry(config.databaseWaitSeconds * 1000, 'DATABASE_WAIT_SECONDS');
      const migrate = (store: Store) =>
        retry ? retry(() => store.migrate(), { to: 'migrate', done: 'migrating' }) : store.migrate();
      const applied = await withStore(config, migrate, false);
      console.log(applied.length > 0 ? `applied: ${applied.join(', ')}` : 'the database is up to date');
      return EXIT.done;
    }
    case 'status': {
      const config = loadConfig();
      // A SQLite file that is not there is not created by looking at it (a mistyped path stays visible).
      const file = isPostgresUrl(config.databaseUrl) ? null : sqlitePath(config.databaseUrl);
      const status =
        file !== null && file !== ':memory:' && !existsSync(file)
          ? unansweredStatus('sqlite', `no database file at ${file}`, config)
          : await withStore(config, (store) => readStatus(store, config), false);
      console.log(values.json ? JSON.stringify(status, null, 2) : statusLines(status).join('\n'));
      return status.database.answers ? EXIT.done : EXIT.databaseUnavailable;
    }
    case 'catalogue load':
      readable(argument);
      await readingFile(argument, () => withStore(loadConfig(), (store) => loadCatalogueFile(store, argument)));
      console.log(`catalogue loaded from ${argument}`);
      return EXIT.done;
    case 'movements import':
    case 'trades import':
      return importCommand(
        command.name === 'movements import' ? 'movements' : 'trades',
        argument,
        values as Record<string, string | boolean | undefined>,
        help,
      );
    default:
      throw new UsageError(`unknown command: ${command.name}`, generalHelp());
  }
}

/** Input refused for what it holds (the file's or the stream's content): exit 1, nothing of it written. */
const invalidInput = (error: unknown): error is Error =>
  error instanceof CatalogueError ||
  error instanceof CatalogueConflict ||
  error instanceof ImportError ||
  error instanceof ImportConflict ||
  error instanceof StreamRefusal;

/** Input of `file` refused: the message names the file. */
class FileInputError extends Error {
  constructor(file: string, refusal: Error) {
    super(`${file}: ${refusal.message}`, { cause: refusal });
  }
}

/** Runs what reads `file`; a refusal of its content names it. */
async function readingFile<T>(file: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw invalidInput(error) ? new FileInputError(file, error) : error;
  }
}

/** The one sentence an error becomes, and its exit code. */
function explain(error: unknown): { message: string; code: number } {
  if (error instanceof UsageError) return { message: `${error.message}\n\n${error.help}`, code: EXIT.usage };
  if (error instanceof ConfigError || error instanceof TracingConfigError)
    return { message: error.message, code: EXIT.usage };
  if (invalidInput(error) || error instanceof FileInputError)
    return { message: error.message, code: EXIT.invalidInput };
  if (error instanceof DatabaseAhead || error instanceof MigrationMismatch)
    return { message: error.message, code: EXIT.invalidInput };
  const fileError = error as NodeJS.ErrnoException;
  if (fileError?.path !== undefined && ['ENOENT', 'EACCES', 'EISDIR', 'EPERM'].includes(fileError.code ?? '')) {
    const why = {
      ENOENT: 'no such file',
      EACCES: 'permission denied',
      EPERM: 'permission denied',
      EISDIR: 'a directory',
    };
    return {
      message: `cannot read ${fileError.path}: ${why[fileError.code as keyof typeof why]}`,
      code: EXIT.invalidInput,
    };
  }
  const listening = error as NodeJS.ErrnoException & { address?: string; port?: number; setting?: string };
  if (listening?.syscall === 'listen' && (listening.code === 'EADDRINUSE' || listening.code === 'EACCES')) {
    const why = listening.code === 'EADDRINUSE' ? 'the port is in use' : 'permission denied';
    return {
      message: `cannot listen on ${listening.address}:${listening.port}: ${why} (set ${listening.setting ?? 'PORT or HOST'})`,
      code: EXIT.usage,
    };
  }
  if (error instanceof DatabaseGone) return { message: error.message, code: EXIT.databaseUnavailable };
  if (databaseUnavailable(error)) {
    const detail = error instanceof Error && error.message ? ` (${error.message.split('\n')[0]})` : '';
    return { message: `the database is unavailable${detail}`, code: EXIT.databaseUnavailable };
  }
  return { message: error instanceof Error ? error.message : String(error), code: EXIT.invalidInput };
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error: unknown) => {
    const { message, code } = explain(error);
    console.error(message);
    if (process.env.LOG_LEVEL === 'debug' && error instanceof Error) console.error(error.stack);
    process.exit(code);
  },
);
