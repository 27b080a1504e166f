import { defineConfig } from 'vitest/config';
import FailuresFile from '../scripts/vitest-failures.mjs';

export default defineConfig({
  test: {
    // Vitest's own report, and the failures' lines that `npm test` prints last (scripts/vitest-failures.mjs).
    reporters: ['default', new FailuresFile()],
    include: ['test/**/*.test.ts'],
    // A document for react-dom, the network Node's own (test/support/dom.ts).
    setupFiles: ['test/support/dom.ts'],
    testTimeout: 15_000,
  },
});
