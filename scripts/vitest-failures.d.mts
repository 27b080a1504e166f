import type { Reporter } from 'vitest/node';

/** Appends the run's failures, a line each, to the file TEST_FAILURES_FILE names (scripts/test.mjs prints them). */
export default class FailuresFile implements Reporter {
  onTestRunEnd: NonNullable<Reporter['onTestRunEnd']>;
}
