/**
 * The example wallet (examples/wallet: Vite + React + @gateway/react) as a user meets it, in headless
 * Chromium: built by vite and served from a local origin, against the real server (`serve --demo`) and
 * against the mock (scripts/mock-front.mjs before the run's Prism mock). Sign-in and paging, terms and
 * addresses, an imported movement shown live, two tabs through refreshes of short-lived tokens and a
 * sign-out reaching the other tab, and an error forced on the mock shown with its kind. Screenshots of every
 * page of a failed test go to test-results/, with the gateway's log, and what the pages reported is printed.
 * Prints the figures: bundle size, sign-in click to first page, import to event shown, refreshes of two tabs.
 * And `npm run wallet` as a user starts it: vite's `--port`, and the gateway choices on `PORT` and `MOCK_PORT`.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { gzipSync } from 'node:zlib';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium } from '../src/chromium.js';
import { percentile } from '../src/figures.js';
import { type RunningGateway, startGateway } from '../src/gateway.js';
import { importMovement } from '../src/movements.js';
import { freePort } from '../src/prism.js';
import {
  addProbes,
  type RunningMock,
  type ServedWallet,
  serveWallet,
  shownAt,
  signInToFirstPage,
  startMock,
} from './wallet-support.js';

const PAGE_SIZE = 20;
/** Movements of the demo account (of the demo exchange's 60). */
const DEMO_MOVEMENTS = 50;
const figures: string[] = [];

// Without Chromium, src/services.ts says so and skips this (CI fails instead).
describe.skipIf(!inject('chromium'))('the example wallet in headless Chromium', () => {
  let gateway: RunningGateway;
  let mock: RunningMock;
  let wallet: ServedWallet;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  /** What the pages reported (uncaught errors, console errors), printed when a test fails. */
  const pageErrors: string[] = [];

  beforeAll(async () => {
    [gateway, mock, wallet, browser] = await Promise.all([
      startGateway(),
      startMock(inject('mockUrl')),
      serveWallet(),
      launchChromium(),
    ]);
    const scripts = readdirSync(path.join(wallet.outDir, 'assets')).filter((file) => file.endsWith('.js'));
    const gzip = scripts.reduce(
      (sum, f) => sum + gzipSync(readFileSync(path.join(wallet.outDir, 'assets', f))).length,
      0,
    );
    figures.push(
      `example wallet bundle: ${(gzip / 1024).toFixed(1)} KiB gzipped (React, TanStack Query, client, hooks)`,
    );
  }, 120_000);

  afterEach(async (context) => {
    if (context.task.result?.state === 'fail') {
      mkdirSync('test-results', { recursive: true });
      const name = context.task.name.replace(/\W+/g, '-').slice(0, 60);
      const pages = contexts.flatMap((c) => c.pages());
      for (const [index, page] of pages.entries()) {
        await page
          .screenshot({ path: `test-results/wallet-${name}-${index}.png`, fullPage: true })
          .catch(() => undefined);
      }
      writeFileSync(`test-results/wallet-${name}-gateway.log`, gateway.output());
      if (pageErrors.length > 0) console.log(`what the pages reported:\n  ${pageErrors.join('\n  ')}`);
    }
    for (const c of contexts.splice(0)) await c.close();
  });

  afterAll(async () => {
    await browser?.close();
    await wallet?.close();
    await mock?.stop();
    await gateway?.stop();
    if (figures.length > 0) console.log(`wallet figures:\n  ${figures.join('\n  ')}`);
  });

  /** Keeps what `page` reports (uncaught errors, console errors). */
  function listen(page: Page): void {
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    page.on('console', (message) => message.type() === 'error' && pageErrors.push(message.text()));
  }

  /** A new browser profile (its own localStorage) with a tab of the wallet on `api`. */
  async function open(
    api: string,
    query: Record<string, string> = {},
  ): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    listen(page);
    await addProbes(page);
    await page.goto(`${wallet.url}/?${new URLSearchParams({ api, ...query })}`);
    return { context, page };
  }

  const rows = (page: Page) => page.locator('#movements tbody tr');

  async function signIn(page: Page): Promise<void> {
    await page.locator('#sign-in').click();
    await page.locator('#account').waitFor({ timeout: 20_000 });
  }

  it('signs in with the demo seed and pages the movements to their end', async () => {
    const { page } = await open(gateway.url);
    await signIn(page);
    await expect.poll(() => rows(page).count(), { timeout: 20_000 }).toBe(PAGE_SIZE);
    figures.push(`sign-in click to first page: ${await signInToFirstPage(page)} ms`);
    for (const shown of [40, 50]) {
      await page.locator('#more').click();
      await expect.poll(() => rows(page).count(), { timeout: 20_000 }).toBe(shown);
    }
    await expect.poll(() => page.locator('#more').textContent()).toBe('No more');
    await expect(page.locator('#more').isDisabled()).resolves.toBe(true);
    const ids = await rows(page).evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-id')));
    expect(new Set(ids).size).toBe(DEMO_MOVEMENTS);
    await expect(page.locator('#connection').getAttribute('data-status')).resolves.toBe('open');
  });

  it('shows deposit and withdrawal terms and addresses, and a refusal with its request id', async () => {
    const { page } = await open(gateway.url);
    await signIn(page);
    await page.locator('#deposit-choice').selectOption('USDT/ETH');
    await expect.poll(() => page.locator('#deposit .terms').textContent()).toContain('Fees');
    await expect
      .poll(() => page.locator('#deposit-address').textContent(), { timeout: 10_000 })
      .toMatch(/^0x[0-9a-fA-F]{40}$/);
    await page.locator('#withdrawal-choice').selectOption('USDT/ETH');
    await page.locator('#destination').fill('0x3f2b1c25A5f23b193560B97988ee98cBDb480730');
    await page.locator('#withdrawal-address').click();
    await expect.poll(() => page.locator('#proxy-address').textContent(), { timeout: 10_000 }).toMatch(/^3P\w{33}$/);
    // A destination that is no address of the platform: the server's refusal, with its request id.
    await page.locator('#destination').fill('not-an-address');
    await page.locator('#withdrawal-address').click();
    const refusal = page.locator('#withdrawal .error');
    await refusal.waitFor({ timeout: 10_000 });
    await expect(refusal.getAttribute('data-kind')).resolves.toBe('api');
    await expect(refusal.getAttribute('data-status')).resolves.toBe('400');
    await expect(refusal.locator('.request-id').textContent()).resolves.toMatch(/^\w+-\w+$/);
  });

  it('shows each imported movement live, within a second of the import, at the top of the list', async () => {
    const { page } = await open(gateway.url);
    await signIn(page);
    await expect.poll(() => rows(page).count(), { timeout: 20_000 }).toBe(PAGE_SIZE);
    await expect.poll(() => page.locator('#connection').getAttribute('data-status'), { timeout: 10_000 }).toBe('open');
    const afterExit: number[] = [];
    const afterStart: number[] = [];
    for (let round = 0; round < 5; round++) {
      const id = randomUUID();
      const started = Date.now();
      await importMovement(gateway.dataDir, 'in_progress', id, { created_at: new Date().toISOString() });
      const exited = Date.now();
      await expect.poll(() => shownAt(page, id), { timeout: 10_000 }).toBeDefined();
      const shown = (await shownAt(page, id)) as number;
      afterExit.push(Math.max(0, shown - exited));
      afterStart.push(shown - started);
      // The cached first page has it first (events applied to the cache), without a reload.
      await expect.poll(() => rows(page).first().getAttribute('data-id')).toBe(id);
    }
    // The goal (within a second of the import) is a figure printed beside it, not a timed assertion: CI's
    // machines are shared. The test asserts each event is shown, live, at the top of the list.
    const p99 = percentile(afterExit, 99);
    figures.push(
      `import to event shown (5 imports): after the import command exits p50 ${percentile(afterExit, 50)} ms, p99 ${p99} ms (goal 1000 ms: ${p99 <= 1000 ? 'met' : 'MISSED'}); from its start (a Node process) p99 ${percentile(afterStart, 99)} ms`,
    );
    expect(await rows(page).count()).toBe(PAGE_SIZE + 5);
  });

  it('keeps two tabs signed in through refreshes of short-lived tokens; a sign-out in one reaches the other', async () => {
    // Access tokens of 4 s (the client's lifetime option; the server takes any from 1 s to a week).
    const { context, page: first } = await open(gateway.url, { lifetime: '4' });
    await signIn(first);
    const second = await context.newPage();
    listen(second);
    await addProbes(second);
    await second.goto(first.url());
    await second.locator('#account').waitFor({ timeout: 20_000 });
    const key = `gateway.session@${gateway.url}`;
    const refreshTokens = new Set<string>();
    const stored = async () =>
      JSON.parse((await first.evaluate((k) => localStorage.getItem(k), key)) ?? 'null') as {
        refreshToken: string;
      } | null;
    // Both tabs read (Reload) every second for 14 s, and both hold an event stream that ends at each
    // token's expiry: they refresh in turn, and each adopts the other's pair.
    const until = Date.now() + 14_000;
    while (Date.now() < until) {
      // A sign-in revoked by a refresh token presented twice would sign both tabs out here.
      const signedOut = await Promise.all([first, second].map((tab) => tab.locator('#sign-in-form').count()));
      expect(signedOut, 'tabs signed out (first, second)').toEqual([0, 0]);
      await Promise.all([first, second].map((tab) => tab.locator('#reload').click({ timeout: 5000 })));
      const tokens = await stored();
      if (tokens) refreshTokens.add(tokens.refreshToken);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    const refreshes = refreshTokens.size - 1;
    expect(refreshTokens.size).toBeGreaterThanOrEqual(4);
    for (const tab of [first, second]) {
      await expect(tab.locator('#account').isVisible()).resolves.toBe(true);
      await tab.locator('#reload').click();
      await expect.poll(() => tab.locator('#movements tbody tr').count(), { timeout: 10_000 }).toBe(PAGE_SIZE);
      await expect(tab.locator('#movements .error').count()).resolves.toBe(0);
    }
    // The sign-in is alive on the server: a movement imported now reaches both tabs' streams.
    const id = await importMovement(gateway.dataDir, 'confirmed', randomUUID(), {
      created_at: new Date().toISOString(),
    });
    for (const tab of [first, second]) {
      await expect.poll(() => shownAt(tab, id), { timeout: 15_000 }).toBeDefined();
    }
    await first.locator('#sign-out').click();
    for (const tab of [first, second]) await tab.locator('#sign-in-form').waitFor({ timeout: 10_000 });
    await expect(first.evaluate((k) => localStorage.getItem(k), key)).resolves.toBeNull();
    // A tab that read localStorage before the other tab's write reached it presented the refresh token the
    // other had just spent: the server's reuse grace gave it a pair of the sign-in (counted apart).
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    const replayed = /gateway_token_grants_total\{grant="refresh_token_replayed"\} (\d+)/.exec(metrics)?.[1] ?? '0';
    figures.push(
      `two tabs, 4 s tokens, 14 s: ${refreshes} refreshes, both still signed in; spent refresh tokens presented again within the reuse grace: ${replayed}`,
    );
  }, 60_000);

  it('pages the mock to its end, and shows an error forced on it (Prefer) on the list and the live connection', async () => {
    const { page } = await open(mock.url);
    await signIn(page);
    await expect.poll(() => rows(page).count(), { timeout: 20_000 }).toBeGreaterThan(0);
    // The mock pages to an end (its next_page example) without repeating a row.
    const firstPage = await rows(page).count();
    await page.locator('#more').click();
    await expect.poll(() => rows(page).count(), { timeout: 20_000 }).toBeGreaterThan(firstPage);
    await expect.poll(() => page.locator('#more').textContent()).toBe('No more');
    const ids = await rows(page).evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-id')));
    expect(new Set(ids).size).toBe(ids.length);
    await page.locator('#force-error').selectOption('code=503');
    const refusal = page.locator('#movements .error');
    await refusal.waitFor({ timeout: 20_000 });
    await expect(refusal.getAttribute('data-kind')).resolves.toBe('api');
    await expect(refusal.getAttribute('data-status')).resolves.toBe('503');
    await expect(refusal.textContent()).resolves.toContain('HTTP 503');
    // The mock's stream ends after its example; the reconnect is refused: the indicator says so.
    await expect
      .poll(() => page.locator('#connection').getAttribute('data-status'), { timeout: 20_000 })
      .toBe('reconnecting');
    await page.locator('#force-error').selectOption('');
    await expect.poll(() => refusal.count(), { timeout: 20_000 }).toBe(0);
  }, 60_000);
});

describe('npm run wallet', () => {
  it("takes vite's --port, and offers the demo server and the mock on PORT and MOCK_PORT", async () => {
    const [port, gatewayPort, mockPort] = await Promise.all([freePort(), freePort(), freePort()]);
    let output = '';
    // Its own process group (npm, turbo, vite), stopped whole at the end.
    const npm = spawn('npm', ['run', 'wallet', '--', '--port', String(port)], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      env: { ...process.env, PORT: String(gatewayPort), MOCK_PORT: String(mockPort) },
      detached: true,
    });
    // Vite colours its lines where CI or a terminal says so: read as text.
    npm.stdout.on('data', (chunk) => {
      output += stripVTControlCharacters(String(chunk));
    });
    npm.stderr.on('data', (chunk) => {
      output += stripVTControlCharacters(String(chunk));
    });
    const page = `http://localhost:${port}`;
    try {
      const deadline = Date.now() + 100_000;
      // Vite's "Local: http://localhost:<port>/" once it serves (after the build of the packages it needs).
      while (!/Local:/.test(output) && Date.now() < deadline) {
        if (npm.exitCode !== null) throw new Error(`npm run wallet exited:\n${output}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(output).not.toContain('parsed as a normal command line argument');
      expect(output, output).toContain(`Local:   http://localhost:${port}/`);
      // The page's env, as vite serves it to the page's modules.
      const settings = await (await fetch(`${page}/src/settings.ts`)).text();
      expect(settings).toContain(`"VITE_GATEWAY_PORT": "${gatewayPort}"`);
      expect(settings).toContain(`"VITE_MOCK_PORT": "${mockPort}"`);
      if (inject('chromium')) {
        const browser = await launchChromium();
        try {
          const tab = await browser.newPage();
          await tab.goto(page);
          const choices = () =>
            tab.locator('#gateway option').evaluateAll((os) => os.map((o) => o.getAttribute('value')));
          await expect
            .poll(choices, { timeout: 20_000 })
            .toEqual([`http://127.0.0.1:${gatewayPort}`, `http://127.0.0.1:${mockPort}`]);
        } finally {
          await browser.close();
        }
      }
    } finally {
      if (npm.pid) {
        try {
          process.kill(-npm.pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
    }
  }, 150_000);
});
