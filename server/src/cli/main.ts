/**
 * `gateway`: the operator's command line. `gateway help` lists the commands, `gateway help COMMAND` (or
 * `gateway COMMAND --help`) describes one. Errors are one sentence on standard error (a stack trace only
 * with LOG_LEVEL=debug); the exit codes are in cli/usage.ts. Configuration comes from the environment (see
 * .env.example). This file reads the command line and dispatches; each command is in this folder. It is
 * loaded by ../cli.ts once the Node line is known to be supported.
 */
import { parseArgs } from 'node:util';
import { COMMANDS, find } from './commands.js';
import { commandHelp, EXIT, generalHelp, optionProblem, UsageError, usageOf } from './usage.js';

/** Runs the command `argv` names: its exit code, or -1 for one that runs until stopped (serve). */
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
  // Each command's module is loaded when it runs, so a command loads only what it uses (help nothing of the
  // server, status no catalogue parser, ...).
  switch (command.name) {
    case 'serve':
      await (await import('./serve.js')).serveCommand(values.demo === true);
      return -1;
    case 'migrate':
      return (await import('./database.js')).migrateCommand();
    case 'status':
      return (await import('./database.js')).statusCommand(values.json === true);
    case 'catalogue load':
      return (await import('./database.js')).catalogueLoadCommand(argument);
    case 'prune':
      return (await import('./prune.js')).pruneCommand(values['dry-run'] === true);
    case 'backup':
      return (await import('./backup.js')).backupCommand(argument);
    case 'restore':
      return (await import('./backup.js')).restoreCommand(argument);
    case 'movements import':
    case 'trades import':
      return (await import('./imports.js')).importCommand(
        command.name === 'movements import' ? 'movements' : 'trades',
        argument,
        values as Record<string, string | boolean | undefined>,
        help,
      );
    default:
      throw new UsageError(`unknown command: ${command.name}`, generalHelp());
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  async (error: unknown) => {
    // What the failures are made of is loaded only for a failure.
    const { explain } = await import('./failures.js');
    const { message, code } = explain(error);
    console.error(message);
    if (process.env.LOG_LEVEL === 'debug' && error instanceof Error) console.error(error.stack);
    process.exit(code);
  },
);
