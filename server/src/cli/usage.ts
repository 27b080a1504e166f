/** What `gateway` says about its use: the exit codes, the help texts, and the usage errors. */
import { COMMANDS, type Command } from './commands.js';

export const EXIT = { done: 0, invalidInput: 1, usage: 2, databaseUnavailable: 3 } as const;
const EXIT_CODES = `exit codes:
  0  done
  1  invalid input (a file, a line, the catalogue; nothing of what was refused was written), a database
     migrated by a newer release (migrate) or whose migrations do not fit this release, or another failure
  2  usage or configuration error
  3  the database is unavailable`;

export const usageOf = (c: Command) => `gateway ${c.name}${c.args ? ` ${c.args}` : ''}`;

export function generalHelp(): string {
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

export function commandHelp(command: Command): string {
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

export class UsageError extends Error {
  constructor(
    message: string,
    readonly help: string,
  ) {
    super(message);
  }
}

/** What node's argument parser refused, in the CLI's words (its own name a value "ambiguous", say). */
export function optionProblem(error: Error & { code?: string }): string {
  const option = /'(--?[\w-]+)/.exec(error.message)?.[1];
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option) return `unknown option ${option}`;
  if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option) {
    // A value starting with '-' is taken for an option: `--batch-ms -5`.
    return `${option} needs a value${/ambiguous/.test(error.message) ? ' (not one starting with -)' : ''}`;
  }
  return error.message.split('\n')[0] ?? 'bad options';
}
