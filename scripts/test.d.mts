/** Types of scripts/test.mjs, for the tests. */
export interface TurboRun {
  /** turbo's arguments after `run test --log-order=grouped`. */
  turboArgs: string[];
  /** vitest's arguments (after turbo's `--`). */
  vitestArgs: string[];
}
export function runsFor(args: string[], cwd?: string): TurboRun[];
