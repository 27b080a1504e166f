/** The API reference at /docs, in headless Chromium: every operation of the spec is on the page. */
import { mkdirSync } from 'node:fs';
import { operationMeta } from '@gateway/generated';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium } from '../src/chromium.js';
import { type RunningGateway, startGateway } from '../src/gateway.js';

// Without Chromium, src/services.ts says so and skips this (CI fails instead).
describe.skipIf(!inject('chromium'))('the API reference page', () => {
  let gateway: RunningGateway;
  beforeAll(async () => {
    gateway = await startGateway();
  }, 60_000);
  afterAll(() => gateway?.stop());

  it('shows every operation, and a screenshot is kept', async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(`${gateway.url}/docs/`);
      await page.waitForSelector('.opblock', { timeout: 30_000 });
      const shown = await page.$$eval('.opblock', (blocks) =>
        blocks.map((block) => {
          const method = block.querySelector('.opblock-summary-method')?.textContent?.trim() ?? '';
          // Deprecated operations render their path in another element; Swagger UI adds zero-width spaces.
          const element = block.querySelector('.opblock-summary-path, .opblock-summary-path__deprecated');
          const path = (element?.getAttribute('data-path') ?? element?.textContent ?? '').replace(/\u200b/g, '').trim();
          return `${method} ${path}`;
        }),
      );
      const expected = Object.values(operationMeta).map((meta) => `${meta.method} ${meta.path}`);
      expect([...shown].sort()).toEqual([...expected].sort());
      const deprecated = await page.$$eval('.opblock-deprecated', (blocks) => blocks.length);
      expect(deprecated).toBe(4);
      mkdirSync('test-results', { recursive: true });
      await page.screenshot({ path: 'test-results/api-reference.png', fullPage: true });
    } finally {
      await browser.close();
    }
  });
});
