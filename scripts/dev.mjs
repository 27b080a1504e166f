#!/usr/bin/env node
// `npm run dev`: the API developer's loop. Serves the demo exchange (`serve --demo`) on its own SQLite
// database in ./data-dev, and keeps it up to date with the sources:
//   spec/                       → validate and regenerate generated/ (scripts/generate.mjs), then as below
//   generated/src, ledger/src   → compiled again (tsc --watch, incremental), then the server
//   server/src                  → compiled again (tsc --watch, incremental)
// and restarts the server after each clean round. A step that fails (a refused spec, a type error, a server
// that does not start) is printed in a few lines and the loop goes on: the last good build keeps being served
// (or, when the server itself failed, nothing, and a line says so) until an edit builds.
//
//   npm run dev          PORT and HOST as for `npm start` (3000, 127.0.0.1); Ctrl-C ends it
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorReport, startCompiler } from './dev-compiler.mjs';
import { answers, ended, serve, standbyServer, stopServer } from './dev-server.mjs';
import { watchTree } from './dev-watch.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dataDir = path.join(root, 'data-dev');
const port = process.env.PORT ?? '3000';
const host = process.env.HOST ?? '127.0.0.1';
const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host}:${port}`;
/** After the last source event, how long to wait for a compiler to start a round before restarting anyway. */
const QUIET_MS = 300;
/** Generated files that hold only types (and the bundled document, read at start): no compiled JavaScript changes. */
const TYPES_ONLY = ['openapi.json', 'src/schema.ts'];
/** How long an edit waits for its compiler to start a round for it (a file it does not read: none comes). */
const PENDING_MS = 3000;
/** Files editors write beside the one edited (swap, backup and probe files): not an edit. */
const EDITOR_FILES = /(^|[/\\])(\.[^/\\]*|[^/\\]*~|\d+)$|\.sw[a-p]$/;

const say = (text) => console.log(`[dev] ${text}`);
const clock = (ms) => new Date(ms).toTimeString().slice(0, 8);
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

const loop = {
  generating: false,
  generateAgain: false,
  /** When the first source event not yet served happened (the change the next restart serves). */
  changedAt: null,
  lastEventAt: 0,
  restartWanted: false,
  /** Per compiler, the time of the first edit of its sources that none of its rounds has included yet. */
  pending: { ledger: null, generated: null, server: null },
  pendingTimer: null,
  /** The restart under way (a promise), or null. */
  restarting: null,
  /** The build being served: when it was started (null: nothing is served). */
  servingSince: null,
  /** The server process (null: none), and the next one, started ahead (scripts/dev-standby.mjs). */
  server: null,
  standby: null,
  stopping: false,
  /**
   * The compilers whose round only checks types against a new spec, their JavaScript being the same: the
   * server's (its code does not depend on the generated types, isolatedModules), and generated/'s when the spec
   * edit changed only its types (src/schema.ts) and the bundled document. A restart does not wait for such a
   * round, the longest step after a spec edit (every handler is checked again); its errors are printed when it
   * ends. An edit of the compiler's own sources ends that.
   */
  checkOnly: new Set(),
  /** Whether the server, ended while its build was written, was started again (once) or waits for that round. */
  retried: false,
  startAfterRound: false,
};

/** A new build to serve (a compiler's clean round): the next restart serves it. */
function built() {
  loop.changedAt ??= Date.now();
  loop.restartWanted = true;
}

/** An edit of a watched source: served once the compilers it sets off are done (see QUIET_MS). */
function sourceEvent(at = Date.now()) {
  built();
  loop.lastEventAt = at;
  setTimeout(maybeRestart, QUIET_MS + 10);
}

/**
 * An edit of a compiler's sources: served once a round of that compiler begun after it is done (a round under
 * way when it came does not hold it), or, if the compiler starts none (not a file it reads), after PENDING_MS.
 */
function compilerSourceEvent(name) {
  const at = Date.now();
  loop.pending[name] ??= at;
  // An edit of code (not the generator's writes) is compiled before it is served, even after a spec edit.
  if (name !== 'generated') loop.checkOnly.delete('server');
  else if (!loop.generating) loop.checkOnly.delete('generated');
  sourceEvent(at);
}

/**
 * What the port serves now, in words: asked of the port itself (a server that did not start, or ended, refuses
 * connections whatever the loop believes), after the start under way, if any, is over.
 */
async function servedNow() {
  await loop.restarting;
  const answered = await fetch(`${url}/health/live`, { signal: AbortSignal.timeout(2000) }).then(
    () => true,
    () => false,
  );
  if (!answered) return `nothing answers at ${url} until an edit builds`;
  if (loop.servingSince === null) return `something answers at ${url}, but not a server of this loop`;
  return `served all the same: the build started at ${clock(loop.servingSince)} answers at ${url}`;
}

const serving = () =>
  loop.servingSince === null
    ? 'nothing is served until an edit builds'
    : `still serving the build started at ${clock(loop.servingSince)}`;

/* ---------------------------------------------------------------- the spec */

/** Runs the generator (validation first: a refused spec writes nothing); runs it again if the spec changed meanwhile. */
function generate() {
  if (loop.generating) {
    loop.generateAgain = true;
    return;
  }
  loop.generating = true;
  loop.changedAt ??= Date.now();
  const started = Date.now();
  const child = spawn(process.execPath, [path.join(root, 'scripts/generate.mjs')], { cwd: root });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  child.on('exit', (code) => {
    loop.generating = false;
    const changed = /\(\d+ files? changed(?:: ([^)]*))?\)/.exec(output)?.[1]?.split(', ') ?? [];
    if (code === 0 && changed.length === 0) {
      say(`spec: checked in ${seconds(Date.now() - started)}, generated/ unchanged`);
    } else if (code === 0) {
      say(`spec: regenerated in ${seconds(Date.now() - started)} (${changed.join(', ')})`);
      if (!starting()) {
        loop.checkOnly.add('server');
        if (changed.every((file) => TYPES_ONLY.includes(file))) loop.checkOnly.add('generated');
      }
      sourceEvent(Date.now());
    } else {
      // The generator's refusal is short already; an unexpected error keeps only its message, not its stack.
      const lines = output.trim().split('\n');
      const stack = lines.findIndex((line) => /^\s+at /.test(line));
      say(
        `spec: refused, generated/ unchanged; ${starting() ? 'starting from generated/ as it is' : serving()}\n${(stack > 0 ? lines.slice(0, stack) : lines).join('\n')}`,
      );
    }
    if (loop.generateAgain) {
      loop.generateAgain = false;
      generate();
    } else maybeRestart();
  });
}

/* ---------------------------------------------------------------- the server */

/** Whether a restart goes ahead without this compiler's round (see checkOnly). */
const skipsCheck = (compiler) => loop.checkOnly.has(compiler.name);

function maybeRestart() {
  if (loop.stopping || !loop.restartWanted || loop.generating) return;
  if (compilers.some((c) => c.compiling && !skipsCheck(c))) return;
  if (starting()) return;
  for (const compiler of compilers) {
    // No round came for the edit in PENDING_MS since the compiler was last busy: not a file it reads.
    const at = loop.pending[compiler.name];
    if (at !== null && Date.now() - Math.max(at, compiler.endedAt) >= PENDING_MS) loop.pending[compiler.name] = null;
  }
  if (Object.entries(loop.pending).some(([name, at]) => at !== null && !loop.checkOnly.has(name))) {
    // Its round comes (and calls back), or the time without one runs out: asked again then.
    clearTimeout(loop.pendingTimer);
    loop.pendingTimer = setTimeout(maybeRestart, 250);
    return;
  }
  const quiet = Date.now() - loop.lastEventAt;
  if (quiet < QUIET_MS) return; // sourceEvent's timer comes back
  if (compilers.some((c) => c.errors.length > 0 && !skipsCheck(c))) return; // reported by the round
  loop.restartWanted = false;
  const restarting = restart().finally(() => {
    if (loop.restarting === restarting) loop.restarting = null;
  });
  loop.restarting = restarting;
}

async function restart() {
  const changedAt = loop.changedAt ?? Date.now();
  loop.changedAt = null;
  if (loop.server) {
    const old = loop.server;
    loop.server = null;
    await stopServer(old);
  }
  loop.servingSince = null;
  const startedAt = Date.now();
  const standby = loop.standby && !ended(loop.standby) ? loop.standby : standbyServer(root, dataDir);
  loop.standby = null;
  const server = serve(standby);
  loop.server = server;
  // Type checks that nothing served waits for yield the machine to the starting server (resumed when it answers).
  const paused = compilers.filter((c) => c.compiling && skipsCheck(c));
  for (const compiler of paused) compiler.pause();
  const answered = await answers(server, `${url}/health/live`).finally(() => {
    for (const compiler of paused) compiler.resume();
  });
  if (loop.server !== server || loop.stopping) return; // stopped for a newer build meanwhile
  if (answered) {
    // The next one, loading while the developer edits.
    loop.standby = standbyServer(root, dataDir);
    loop.retried = false;
    loop.servingSince = startedAt;
    say(
      `serving ${url} (${seconds(Date.now() - changedAt)} after the change, ${seconds(Date.now() - startedAt)} to start)`,
    );
    server.once('exit', (code, signal) => {
      if (loop.server !== server || loop.stopping) return;
      loop.server = null;
      loop.servingSince = null;
      say(
        `the server ended (${signal ?? `exit code ${code}`}, its lines above); nothing is served until an edit builds`,
      );
    });
    return;
  }
  loop.server = null;
  // A compiler that rewrote server/dist while it was loading (the server's type check after a spec edit ends
  // by writing its unchanged output again): once more, when that is done.
  const writing = compilers.find((c) => c.compiling || c.endedAt > startedAt);
  if (writing && !loop.retried) {
    say('the server ended while its build was being written: starting it again once that is done');
    loop.retried = true;
    loop.startAfterRound = writing.compiling;
    if (!writing.compiling) {
      built();
      maybeRestart();
    }
    return;
  }
  const { exitCode, signalCode } = server;
  say(
    `the server did not start (${signalCode ?? `exit code ${exitCode}`}, its lines above); nothing is served until an edit builds`,
  );
}

/* ---------------------------------------------------------------- the compilers and the watchers */

/** Compiled in this order at start (each one's output is the next one's input), then all at once. */
const PACKAGES = [
  ['ledger', 'tsconfig.build.json'],
  ['generated', 'tsconfig.json'],
  ['server', 'tsconfig.build.json'],
];
const compilers = [];
/** Whether the compilers are still doing their first rounds (the first restart follows them). */
const starting = () => compilers.length < PACKAGES.length;

function onRound(compiler) {
  const pending = loop.pending[compiler.name];
  if (pending !== null && compiler.startedAt >= pending) loop.pending[compiler.name] = null;
  if (loop.startAfterRound && !compilers.some((c) => c.compiling)) {
    loop.startAfterRound = false;
    built();
  }
  if (compiler.rounds > 1 && loop.checkOnly.has(compiler.name)) {
    loop.checkOnly.delete(compiler.name);
    if (compiler.errors.length > 0) {
      const report = errorReport(compiler);
      // The new spec's build was started without this check: whether it serves is asked of the port, not assumed.
      return servedNow().then((served) => {
        say(`${compiler.name}: does not compile against the new spec (${served}; fix it, or the spec):\n${report}`);
        maybeRestart();
      });
    }
    say(`${compiler.name}: type-checked against the new spec in ${seconds(Date.now() - compiler.startedAt)}`);
    return maybeRestart();
  }
  if (compiler.errors.length > 0) {
    say(`${compiler.name}: does not compile; ${serving()}\n${errorReport(compiler)}`);
  } else if (compiler.rounds > 1) {
    say(`${compiler.name}: compiled in ${seconds(Date.now() - compiler.startedAt)}`);
    built(); // a new build (of the server, or of its input: generated/dist, ledger/dist) to serve
  }
  maybeRestart();
}

async function start() {
  say(
    `serving the demo exchange from ${path.relative(process.cwd(), dataDir) || dataDir} on ${url}; watching spec/, generated/src, ledger/src and server/src`,
  );
  for (const [folder, onChange] of [
    ['spec', generate],
    ['generated/src', () => compilerSourceEvent('generated')],
    ['ledger/src', () => compilerSourceEvent('ledger')],
    ['server/src', () => compilerSourceEvent('server')],
  ]) {
    let timer = null;
    watchTree(path.join(root, folder), (file) => {
      if (EDITOR_FILES.test(file)) return;
      if (folder === 'spec') {
        clearTimeout(timer);
        timer = setTimeout(onChange, 50);
      } else onChange();
    });
  }
  generate();
  for (const [name, config] of PACKAGES) {
    const compiler = await new Promise((resolve) => {
      const started = startCompiler(root, name, config, (round) => {
        if (round.rounds === 1 && !compilers.includes(started)) {
          say(
            `${name}: compiled in ${seconds(Date.now() - round.startedAt)}${round.errors.length ? ' with errors' : ''}`,
          );
          resolve(started);
        }
        onRound(round);
      });
    });
    compilers.push(compiler);
  }
  loop.checkOnly.clear();
  loop.restartWanted = true;
  maybeRestart();
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, async () => {
    loop.stopping = true;
    for (const compiler of compilers) compiler.stop();
    loop.standby?.kill();
    if (loop.server) await stopServer(loop.server);
    process.exit(0);
  });
}

await start();
