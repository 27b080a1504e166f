// One package's TypeScript compiler kept running (`tsc --watch`) for `npm run dev` (scripts/dev.mjs): it keeps
// the program in memory, so that an edit is compiled again in well under a second, and it reports each round
// (compiling, then idle with its errors) to the loop, which restarts the server after a clean one.
import { spawn } from 'node:child_process';
import { readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';

/** Compiler output lines past which a round's errors are cut short (the rest counted). */
const MAX_ERROR_LINES = 30;

/**
 * The incremental build information of a package's last watched build, kept with its output (`dist/`), so
 * that the next `npm run dev` starts from it. Removed when another build wrote `dist/` after it (`npm run
 * build`): it would then describe outputs that are no longer there.
 */
function buildInfoOf(dir) {
  const file = path.join(dir, 'dist', '.dev.tsbuildinfo');
  let written;
  try {
    written = statSync(file).mtimeMs;
  } catch {
    return file;
  }
  const newer = readdirSync(path.join(dir, 'dist'), { recursive: true, encoding: 'utf8' }).some(
    (name) => name.endsWith('.js') && statSync(path.join(dir, 'dist', name)).mtimeMs > written,
  );
  if (newer) rmSync(file, { force: true });
  return file;
}

/**
 * Starts `tsc --watch` over `<root>/<name>` with its build configuration. `onRound(compiler)` is called after
 * each round; `compiler.compiling` says whether a round is under way, `compiler.errors` holds the last
 * round's error lines (paths from the repository's root), `compiler.rounds` counts the rounds done.
 */
export function startCompiler(root, name, config, onRound) {
  const dir = path.join(root, name);
  const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
  const args = ['-p', config, '--watch', '--preserveWatchOutput', '--pretty', 'false'];
  const child = spawn(process.execPath, [tsc, ...args, '--incremental', '--tsBuildInfoFile', buildInfoOf(dir)], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const compiler = {
    name,
    compiling: true,
    errors: [],
    rounds: 0,
    startedAt: Date.now(),
    endedAt: 0,
    // A compiler paused while the server starts (it only checks types then) is let go on before it is stopped.
    pause: () => child.kill('SIGSTOP'),
    resume: () => child.kill('SIGCONT'),
    stop: () => {
      child.kill('SIGCONT');
      child.kill();
    },
  };
  let pending = '';
  const onLine = (line) => {
    const text = line.replace(/^\[?[\d:]+\s*(AM|PM)?\]?\s*-\s*/, '');
    if (/^(Starting compilation in watch mode|File change detected)/.test(text)) {
      compiler.compiling = true;
      compiler.startedAt = Date.now();
      compiler.errors = [];
    } else if (/^Found \d+ errors?/.test(text)) {
      const count = Number(/\d+/.exec(text)?.[0]);
      if (count === 0) compiler.errors = [];
      else if (compiler.errors.length === 0) compiler.errors.push(text);
      compiler.compiling = false;
      compiler.endedAt = Date.now();
      compiler.rounds += 1;
      onRound(compiler);
    } else if (text.trim()) {
      // An error's first line names its file relative to the package: from the repository's root instead.
      compiler.errors.push(/^[^\s(]+\.[cm]?tsx?\(\d+,\d+\)/.test(text) ? `${name}/${text}` : text);
    }
  };
  for (const stream of [child.stdout, child.stderr]) {
    stream.setEncoding('utf8');
    stream.on('data', (chunk) => {
      const lines = (pending + chunk).split('\n');
      pending = lines.pop() ?? '';
      lines.forEach(onLine);
    });
  }
  child.on('exit', (code, signal) => {
    if (signal === 'SIGTERM') return;
    compiler.compiling = false;
    compiler.errors = [`tsc --watch for ${name} ended (${signal ?? `exit code ${code}`}): restart npm run dev`];
    onRound(compiler);
  });
  return compiler;
}

/** A round's error lines, cut short for the terminal. */
export function errorReport(compiler) {
  const shown = compiler.errors.slice(0, MAX_ERROR_LINES);
  const more = compiler.errors.length - shown.length;
  return [...shown, ...(more > 0 ? [`… ${more} more lines (npm run typecheck for all)`] : [])].join('\n');
}
