import { defineConfig } from 'vitest/config';
import FailuresFile from '../scripts/vitest-failures.mjs';

export default defineConfig({
  test: {
    // Vitest's own report, and the failures' lines that `npm test` prints last (scripts/vitest-failures.mjs).
    reporters: ['default', new FailuresFile()],
    include: ['test/**/*.test.ts'],
    // A guard against a hung test, not a speed check: beside the other workspaces' suites on 2 busy cores, the
    // checks of 100 random keys against the (slow) reference library took over vitest's default 5 s.
    testTimeout: 30_000,
  },
});
