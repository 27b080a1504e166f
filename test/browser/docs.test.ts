/**
 * The API reference at /docs, in headless Chromium: every operation of the spec is on the page, under the
 * page's own Content-Security-Policy, which refuses nothing the page needs.
 */
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
      // Every violation of the policy: the event in the page, and Chromium's console line.
      const violations: string[] = [];
      await page.exposeFunction('reportViolation', (text: string) => violations.push(text));
      await page.addInitScript(() => {
        document.addEventListener('securitypolicyviolation', (event) =>
          (window as unknown as { reportViolation(text: string): void }).reportViolation(
            `${event.violatedDirective} ${event.blockedURI}`,
          ),
        );
      });
      page.on('console', (message) => {
        if (/Content.Security.Policy/i.test(message.text())) violations.push(message.text());
      });
      const answer = await page.goto(`${gateway.url}/docs/`);
      expect(answer?.headers()['content-security-policy']).toMatch(/^default-src 'none'; script-src 'self';/);
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
      expect(deprecated).toBe(Object.values(operationMeta).filter((meta) => meta.deprecated).length);
      // The server list starts with this server (a relative URL) and the policy refused nothing.
      expect(await page.$eval('.servers select', (select) => (select as HTMLSelectElement).value)).toBe('/');
      expect(violations).toEqual([]);
      mkdirSync('test-results', { recursive: true });
      await page.screenshot({ path: 'test-results/api-reference.png', fullPage: true });
    } finally {
      await browser.close();
    }
  });
});
