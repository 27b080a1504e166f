import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // A document for react-dom, the network Node's own (test/support/dom.ts).
    setupFiles: ['test/support/dom.ts'],
    testTimeout: 15_000,
  },
});
