/** The verdicts and the table of a run: each scenario's rows, by its family, in the order they were measured. */
import { fmt, results } from './context.mjs';
import { tracingRows } from './lib/tracing.mjs';
import { pick } from './rows.mjs';
import { clientRows } from './scenarios/client.mjs';
import { eventRows } from './scenarios/events.mjs';
import { followRows } from './scenarios/follow.mjs';
import { pageRows, publicRows, signedInRows } from './scenarios/http.mjs';
import { importRows } from './scenarios/imports.mjs';
import { stormRows } from './scenarios/storm.mjs';
import { tokenRows } from './scenarios/tokens.mjs';

/** Each kind of scenario's rows. */
const ROWS = {
  public: publicRows,
  pages: pageRows,
  'signed-in': signedInRows,
  tokens: tokenRows,
  import: importRows,
  follow: followRows,
  tracing: (s) => tracingRows(s, pick),
  events: eventRows,
  client: clientRows,
  storm: stormRows,
};

export function evaluate() {
  return Object.values(results.scenarios).flatMap((s) => ROWS[s.kind]?.(s) ?? []);
}

export function printTable(rows) {
  const header = ['scenario', 'target', 'req/s', 'p50 ms', 'p99 ms', 'RSS MB', 'CPU µs', 'targets'];
  const lines = rows.map((r) => [
    r.scenario,
    r.target,
    fmt(r.rps),
    fmt(r.p50, 2),
    fmt(r.p99, 2),
    fmt(r.rss, 1),
    fmt(r.cpu),
    [
      ...r.checks.map((c) => {
        const v =
          c.value === null
            ? '-'
            : c.percent
              ? `${(c.value * 100).toFixed(1)}%`
              : c.text.startsWith('x')
                ? `${c.value.toFixed(2)}`
                : fmt(c.value, c.digits ?? (c.text.startsWith('p99') ? 2 : c.text.startsWith('records/s') ? 0 : 1));
        // A check without a verdict but with a value is information (a baseline's own figure).
        const verdict = c.pass === null ? (c.value === null ? ' n/a' : '') : c.pass ? ' PASS' : ' MISS';
        return c.value === null && c.pass !== null ? `${c.text}${verdict}` : `${v} ${c.text}${verdict}`;
      }),
      ...(r.non2xx || r.errors ? [`!! ${r.non2xx} non-2xx, ${r.errors} errors`] : []),
      ...(r.background > 0.1 ? [`!! machine ${(r.background * 100).toFixed(0)}% busy with other work`] : []),
    ].join(' | '),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const right = new Set([2, 3, 4, 5, 6]);
  const line = (cells) =>
    cells
      .map((c, i) => (right.has(i) ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const l of lines) console.log(line(l));
}
