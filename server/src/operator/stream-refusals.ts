/**
 * What a streamed import refuses, in one sentence each: a line that is not a record (StreamRefusal), and a
 * record the store refuses because it would change what orders a list (ImportConflict). Each names its
 * line and what of the input was, and was not, written.
 */
import type { OrderChange } from '../store/pages.js';

/** A line refused while streaming: one sentence, with its line number and what was not written. */
export class StreamRefusal extends Error {
  constructor(line: number, problem: string, batchFrom: number | null, written: number) {
    const batch = batchFrom === null || batchFrom === line ? `line ${line}` : `lines ${batchFrom}–${line}`;
    super(
      `line ${line}: ${problem}; nothing of ${batch} was written` +
        (written > 0 ? ` (the ${written} record(s) before were)` : ''),
    );
  }
}

/** What an order change says of its line, in the words of its batch's lines. */
export const orderProblem = (change: OrderChange, lineOf: (index: number) => number) =>
  `${change.subject} ${change.earlier === null ? 'is stored with' : `has on line ${lineOf(change.earlier)}`} ` +
  `${change.field} ${change.stored}, not ${change.given}, and what orders a list does not change once stored`;

/** A record refused by the store because it changes what orders its list; one sentence, with its line. */
export class ImportConflict extends Error {
  constructor(change: OrderChange, lines: readonly number[], written: number) {
    const lineOf = (index: number) => lines[index] as number;
    const before = written > 0 ? ` (the ${written} record(s) before them were)` : '';
    super(
      `line ${lineOf(change.index)}: ${orderProblem(change, lineOf)}; ` +
        `nothing of lines ${lineOf(0)}–${lines.at(-1)} was written${before}`,
    );
  }
}
