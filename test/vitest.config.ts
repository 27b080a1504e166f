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
    // The builds under test brought up to date (src/fresh-build.ts), PostgreSQL (found or started:
    // TEST_DATABASE_URL), then Redis and Chromium (found or skipped), then Prism.
    globalSetup: ['src/fresh-build.ts', '../scripts/test-postgres.mjs', 'src/services.ts', 'src/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 90_000,
  },
});
