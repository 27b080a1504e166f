import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import FailuresFile from '../scripts/vitest-failures.mjs';

export default defineConfig({
  test: {
    // Vitest's own report, and the failures' lines that `npm test` prints last (scripts/vitest-failures.mjs).
    reporters: ['default', new FailuresFile()],
    include: ['test/**/*.test.ts'],
    // Two test files at a time at least: vitest's default is one fewer than the cores, so on 2 cores the files ran
    // one by one, though most of their time is spent waiting on what they start (servers, Prism, PostgreSQL,
    // compilers). Every file makes its own ports, folders and schemas, so they run side by side
    // (docs/testing.md has the times; `--maxWorkers=1` on the command line runs them one by one again).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // The files of a worker share its modules instead of each importing the app anew (the spec's validators,
    // Fastify, Kysely, the drivers): 232 s of CPU for the suite isolated, 161 s shared, measured side by side
    // on 2 cores (docs/testing.md). Every file builds its own apps, stores and folders, and none mocks a module
    // or changes the environment, so nothing one file does is seen by the next.
    isolate: false,
    // The PostgreSQL the tests run on, found or started (TEST_DATABASE_URL); the schemas the tests make there,
    // dropped at the end of the run (test/support/schema-reaper.ts).
    globalSetup: ['../scripts/test-postgres.mjs', 'test/support/schema-reaper.ts'],
    // Every answer of every app the tests build is checked against the spec (test/support/answers.ts); the
    // apps share glue's compiled meta-schema (test/support/shared-validators.ts).
    setupFiles: ['test/support/answers-setup.ts', 'test/support/shared-validators.ts'],
    // A guard against a hung test, not a speed check: runtime.test.ts's ten `gateway migrate` processes took
    // 29.8 s with the files one by one on 2 busy cores, and timed out at 30 s beside another file.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
