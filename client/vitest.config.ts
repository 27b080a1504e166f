import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // A guard against a hung test, not a speed check: beside the other workspaces' suites on 2 busy cores, the
    // checks of 100 random keys against the (slow) reference library took over vitest's default 5 s.
    testTimeout: 30_000,
  },
});
