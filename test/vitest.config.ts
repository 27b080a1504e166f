import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'contract/**/*.test.ts',
      'codegen/**/*.test.ts',
      'generators/**/*.test.ts',
      'browser/**/*.test.ts',
      'cluster/**/*.test.ts',
      'attack/**/*.test.ts',
      'package/**/*.test.ts',
      'compat/**/*.test.ts',
      'scripts/**/*.test.ts',
      'smoke/**/*.test.ts',
      'docs/**/*.test.ts',
    ],
    // Two test files at a time at least: vitest's default is one fewer than the cores, so on 2 cores the files ran
    // one by one, though most of their time is spent waiting on what they start (servers, Prism, PostgreSQL,
    // compilers). Every file makes its own ports, folders and schemas, so they run side by side
    // (docs/testing.md has the times; `--maxWorkers=1` on the command line runs them one by one again).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // The builds under test brought up to date (src/fresh-build.ts), PostgreSQL (found or started:
    // TEST_DATABASE_URL), then Redis and Chromium (found or skipped), then Prism.
    globalSetup: ['src/fresh-build.ts', '../scripts/test-postgres.mjs', 'src/services.ts', 'src/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 90_000,
  },
});
