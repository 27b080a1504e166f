import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The PostgreSQL the tests run on, found or started (TEST_DATABASE_URL); the schemas the tests make there,
    // dropped at the end of the run (test/support/schema-reaper.ts).
    globalSetup: ['../scripts/test-postgres.mjs', 'test/support/schema-reaper.ts'],
    // Every answer of every app the tests build is checked against the spec (test/support/answers.ts).
    setupFiles: ['test/support/answers-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
