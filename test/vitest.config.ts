import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import FailuresFile from '../scripts/vitest-failures.mjs';

export default defineConfig({
  test: {
    // Vitest's own report, and the failures' lines that `npm test` prints last (scripts/vitest-failures.mjs).
    reporters: ['default', new FailuresFile()],
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
    // Three test files at a time at least, one a core on larger machines: most of their time is spent waiting on
    // what they start (servers, Prism, PostgreSQL, compilers), and the server's suite beside them ends first. On
    // 2 cores, `npm test` took 300 s with three here against 330 s with two (docs/testing.md). Every file makes
    // its own ports, folders and databases, so they run side by side (`--maxWorkers=1` runs them one by one).
    maxWorkers: Math.max(3, availableParallelism()),
    // The builds under test brought up to date (src/fresh-build.ts), PostgreSQL (found or started:
    // TEST_DATABASE_URL), then Redis and Chromium (found or skipped), then Prism.
    globalSetup: ['src/fresh-build.ts', '../scripts/test-postgres.mjs', 'src/services.ts', 'src/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 90_000,
  },
});
