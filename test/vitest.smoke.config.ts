/**
 * The smoke run of another supported Node line (scripts/smoke.mjs): the README's promises and the CLI's
 * runtime checks, with nothing started for them (no Prism, no PostgreSQL: the embedded database only), on
 * builds `npm test` made.
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: '..',
    include: ['test/smoke/**/*.test.ts', 'server/test/runtime.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 90_000,
  },
});
