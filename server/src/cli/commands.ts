/** The commands of `gateway`: their names, arguments, options and help texts, and which one words name. */

export interface Command {
  /** Words that name it: `movements import`. */
  name: string;
  args: string;
  description: string;
  options: Record<string, { type: 'string' | 'boolean'; help: string }>;
  details?: string;
}

/** How long an import waits for a database that does not answer, seconds: a restart or a fail-over. */
export const DEFAULT_RETRY_FOR = 300;

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

export const COMMANDS: Command[] = [
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
    name: 'prune',
    args: '',
    description: 'delete old events, stale sign-out marks and expired or long-revoked sign-ins now',
    options: { 'dry-run': { type: 'boolean', help: 'count what would be deleted, deleting nothing' } },
    details:
      'What `serve` does every HOUSEKEEPING_INTERVAL_SECONDS (events older than EVENT_RETENTION_HOURS, sign-out\n' +
      'marks that refuse nothing any more, sign-ins expired or revoked longer ago than an access token lives),\n' +
      'in batches of 500 rows, each its own short transaction; safe beside serving instances. Prints what each\n' +
      'task deleted.',
  },
  {
    name: 'backup',
    args: 'FILE',
    description: 'copy the embedded database into a new FILE while it serves',
    options: {},
    details:
      'The copy is the database as of one moment (VACUUM INTO from a read-only connection), made while a server\n' +
      'reads and writes; it is checked (integrity_check) before it takes its name, and an existing FILE is never\n' +
      'overwritten. The signing key and secrets are in DATA_DIR/secrets.json (or the environment): keep them too.\n' +
      'On PostgreSQL it exits 2: use pg_dump or continuous archiving (docs/deployment.md, "Backups").',
  },
  {
    name: 'restore',
    args: 'FILE',
    description: 'put a backup in place of the embedded database (nothing may have it open)',
    options: {},
    details:
      'FILE is checked first (integrity_check, a gateway database). The database must not be open: a serving\n' +
      'instance or an import makes it exit 1, changing nothing. Run `gateway migrate` after restoring a backup\n' +
      'of an older release. On PostgreSQL it exits 2 (pg_restore).',
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

/** The command named by the first words of `words`, and the rest. */
export function find(words: string[]): { command: Command; rest: string[] } | null {
  for (const command of COMMANDS) {
    const name = command.name.split(' ');
    if (name.every((w, i) => words[i] === w)) return { command, rest: words.slice(name.length) };
  }
  return null;
}
