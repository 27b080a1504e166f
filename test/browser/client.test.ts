/**
 * The client in a real browser: headless Chromium (Debian's package, driven by playwright-core) loads the
 * built client as ES modules, signs in against the real server across origins (CORS), lists movements, and
 * (`#events`) waits on `client.events()` for a movement the test imports.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium } from '../src/chromium.js';
import { type RunningGateway, startGateway } from '../src/gateway.js';
import { importMovement } from '../src/movements.js';
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
  if (location.hash === '#events') {
    try {
      // A fetch that tells the test when the stream is open (the server has fixed its start position).
      const watched = async (input, init) => {
        const response = await fetch(input, init);
        if (new URL(response.url).pathname === '/v1/events' && response.ok) window.__eventsOpen = true;
        return response;
      };
      const client = createGatewayClient({ baseUrl: ${JSON.stringify(gateway.url)}, chainId: 'W', clientId: 'waves.exchange', fetch: watched });
      await client.login(signerFromSeed(${JSON.stringify(DEMO_SEED)}), { lifetime: 3600 });
      const signal = AbortSignal.timeout(20000);
      for await (const e of client.events({ signal })) {
        if (e.type === 'movement' && e.movement.id === window.__waitFor) {
          window.__result = { ok: true, id: e.id, movement: e.movement.id, status: e.movement.status };
          break;
        }
      }
      window.__result ??= { ok: false, error: 'no event before the timeout' };
    } catch (error) {
      window.__result = { ok: false, error: String(error) };
    }
  } else try {
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

  it('waits on client.events() in the page for a movement the test imports', async () => {
    const browser = await launchChromium();
    try {
      const tab = await browser.newPage();
      const errors: string[] = [];
      tab.on('pageerror', (e) => errors.push(String(e)));
      tab.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      const started = Date.now();
      await tab.goto(`${page.url}/#events`);
      type Page = { __eventsOpen?: boolean; __waitFor?: string; __result?: unknown };
      await tab.waitForFunction(() => (window as unknown as Page).__eventsOpen === true, undefined, {
        timeout: 30_000,
      });
      const id = randomUUID();
      await tab.evaluate((wanted) => {
        (window as unknown as Page).__waitFor = wanted;
      }, id);
      await importMovement(gateway.dataDir, 'confirmed', id);
      await tab.waitForFunction(() => (window as unknown as Page).__result !== undefined, undefined, {
        timeout: 30_000,
      });
      const result = await tab.evaluate(() => (window as unknown as Page).__result);
      expect(errors).toEqual([]);
      expect(result).toMatchObject({ ok: true, movement: id, status: 'confirmed' });
      expect(Date.now() - started).toBeLessThan(20_000);
    } finally {
      await browser.close();
    }
  });
});
