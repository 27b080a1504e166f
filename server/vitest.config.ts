import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The PostgreSQL the tests run on, found or started (TEST_DATABASE_URL).
    globalSetup: ['../scripts/test-postgres.mjs'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
