/**
 * Instructions by function, from a callgrind dump of a Node process started with `--perf-basic-prof`: where a
 * request's instructions go, to the function, with the same steadiness as the totals (bench/instructions.mjs
 * `--functions N`). Callgrind names JIT-compiled code by address only; Node's perf map (`/tmp/perf-<pid>.map`,
 * one `start size name` line per code object) names it: `JS:*handler file:///…/routes.js:155:22`. V8's
 * optimizing compilers (TurboFan, Maglev, Turboshaft) are one row, `(V8 compilers)`: work that moves with the
 * warm-up, not with the request.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const COMPILER = /v8::internal::(compiler|maglev|turboshaft)::|Turboshaft|Maglev/;

/** The code objects of a perf map, sorted by address. */
function perfMap(file) {
  const entries = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const match = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(line);
    if (match)
      entries.push({ start: Number.parseInt(match[1], 16), size: Number.parseInt(match[2], 16), name: match[3] });
  }
  return entries.sort((a, b) => a.start - b.start);
}

/** The code object holding `address`, by binary search. */
function codeAt(entries, address) {
  let low = 0;
  let high = entries.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const entry = entries[middle];
    if (address < entry.start) high = middle - 1;
    else if (address >= entry.start + entry.size) low = middle + 1;
    else return entry;
  }
  return null;
}

/** A readable row name: the JS function and where it is, or the native symbol without its object file. */
function rowName(symbol, entries) {
  const address = /^\?\?\?:0x([0-9a-f]+)/.exec(symbol);
  if (address) {
    const code = codeAt(entries, Number.parseInt(address[1], 16));
    if (!code) return '(JIT code, unnamed)';
    return code.name
      .replace(/^JS:[*~^+']*/, '')
      .replace(/(file:\/\/)?\/[^ ]*\/(node_modules|server\/dist|bench)\//, '$2/');
  }
  const name = symbol.replace(/^[^:]*:/, '').replace(/\s*\[[^\]]*\]$/, '');
  return COMPILER.test(name) ? '(V8 compilers)' : name;
}

/**
 * Self instructions a request by function, summed over `dumps` (callgrind's files of one process), each
 * JIT address named through `perfMapFile`.
 */
export function instructionsByFunction(dumps, perfMapFile, requests) {
  const entries = perfMap(perfMapFile);
  const rows = new Map();
  for (const dump of dumps) {
    const text = execFileSync('callgrind_annotate', ['--threshold=100', dump], {
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
    });
    for (const line of text.split('\n')) {
      const match = /^\s*([\d,]+) \([\s\d.]+%\)\s+(.*)$/.exec(line);
      if (!match || match[2].includes('PROGRAM TOTALS')) continue;
      const name = rowName(match[2], entries);
      rows.set(name, (rows.get(name) ?? 0) + Number(match[1].replaceAll(',', '')) / requests);
    }
  }
  return rows;
}

/** The `top` rows where `server` spends the most over `floor` (instructions a request), as table lines. */
export function excessLines(server, floor, top) {
  const names = new Set([...server.keys(), ...floor.keys()]);
  const rows = [...names].map((name) => ({ name, server: server.get(name) ?? 0, floor: floor.get(name) ?? 0 }));
  rows.sort((a, b) => b.server - b.floor - (a.server - a.floor));
  const fmt = (n) => Math.round(n).toLocaleString('en').padStart(8);
  return rows.slice(0, top).map((r) => `${fmt(r.server - r.floor)} ${fmt(r.server)} ${fmt(r.floor)}  ${r.name}`);
}
