/**
 * Runs the attack suites alone (no Prism global setup): `npx vitest run --config attack/vitest.config.ts`
 * from test/. The suites also run under test/vitest.config.ts once `attack/**\/*.test.ts` is included there.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('..', import.meta.url)),
    include: ['attack/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
