/**
 * The client in a real browser: headless Chromium (Debian's package, driven by playwright-core) loads the
 * built client as ES modules, signs in against the real server across origins (CORS), lists movements.
 */
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium } from '../src/chromium.js';
import { type RunningGateway, startGateway } from '../src/gateway.js';
import { freePort } from '../src/prism.js';
import { importMap, servePage } from '../src/static.js';

const DEMO_SEED = 'uncle push human bus echo drastic garden joke sand warfare sentence fossil title color combine';

// Without Chromium, src/services.ts says so and skips this (CI fails instead).
describe.skipIf(!inject('chromium'))('the client in headless Chromium', () => {
  let gateway: RunningGateway;
  let page: Awaited<ReturnType<typeof servePage>>;

  beforeAll(async () => {
    // The page's origin is fixed before the gateway starts, so that CORS can name it.
    const pagePort = await freePort();
    const origin = `http://127.0.0.1:${pagePort}`;
    gateway = await startGateway({ CORS_ORIGINS: origin });
    page = await servePage(
      `<!doctype html>
<html><head><meta charset="utf-8"><title>gateway client</title><link rel="icon" href="data:,">
<script type="importmap">${JSON.stringify(importMap)}</script></head>
<body><h1>Movements</h1><ol id="movements"></ol>
<script type="module">
  import { createGatewayClient, signerFromSeed, webStorage } from '@gateway/client';
  try {
    const client = createGatewayClient({ baseUrl: ${JSON.stringify(gateway.url)}, chainId: 'W', clientId: 'waves.exchange', storage: webStorage(localStorage) });
    await client.login(signerFromSeed(${JSON.stringify(DEMO_SEED)}), { lifetime: 3600 });
    const ids = [];
    for await (const m of client.movements({ pageSize: 20 })) {
      ids.push(m.id);
      const li = document.createElement('li');
      li.textContent = m.created_at + ' ' + m.direction + ' ' + m.amount + ' ' + m.currency_id + ' ' + m.status;
      document.getElementById('movements').append(li);
    }
    window.__result = { ok: true, count: ids.length, stored: localStorage.getItem('gateway.session') !== null };
  } catch (error) {
    window.__result = { ok: false, error: String(error) };
  }
</script></body></html>`,
      pagePort,
    );
    expect(page.url).toBe(origin);
  }, 90_000);

  afterAll(async () => {
    await page?.close();
    await gateway?.stop();
  });

  it('signs in against the real server and lists the movements', async () => {
    const browser = await launchChromium();
    try {
      const tab = await browser.newPage();
      const errors: string[] = [];
      tab.on('pageerror', (e) => errors.push(String(e)));
      tab.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      await tab.goto(page.url);
      await tab.waitForFunction(() => (window as unknown as { __result?: unknown }).__result !== undefined, undefined, {
        timeout: 30_000,
      });
      const result = await tab.evaluate(() => (window as unknown as { __result: unknown }).__result);
      mkdirSync('test-results', { recursive: true });
      await tab.screenshot({ path: 'test-results/client-in-chromium.png', fullPage: true });
      expect(errors).toEqual([]);
      expect(result).toEqual({ ok: true, count: 50, stored: true });
      expect(await tab.locator('#movements li').count()).toBe(50);
    } finally {
      await browser.close();
    }
  });
});
