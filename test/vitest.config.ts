import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'contract/**/*.test.ts',
      'codegen/**/*.test.ts',
      'browser/**/*.test.ts',
      'cluster/**/*.test.ts',
      'attack/**/*.test.ts',
    ],
    globalSetup: ['src/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 90_000,
  },
});
