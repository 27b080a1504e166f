/** Types of scripts/test.mjs, for the tests. */
export interface TurboRun {
  /** turbo's own arguments (filters, --summarize, ...): `run test` and ours are added by turboArgsOf. */
  turboArgs: string[];
  /** vitest's arguments (after turbo's `--`). */
  vitestArgs: string[];
}
export function runsFor(args: string[], cwd?: string): TurboRun[];
/** turbo's whole command line for a run: `run test`, `--log-order=grouped` and `--continue` once, then the run's. */
export function turboArgsOf(run: TurboRun): string[];
