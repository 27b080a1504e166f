/**
 * What the wallet's browser test needs around the page: the wallet built by vite and served by vite's
 * preview server, the mock (scripts/mock-front.mjs before the run's Prism mock), and probes the test puts in the
 * page before its scripts run (when the sign-in was clicked, when the first movement row and each event
 * appeared), so that the figures are the page's own clock.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { build, type PreviewServer, preview } from 'vite';
import { mockFront } from '../../scripts/mock-front.mjs';
import { freePort } from '../src/prism.js';
import { spec } from '../src/spec.js';

const WALLET = fileURLToPath(new URL('../../examples/wallet', import.meta.url));

export interface ServedWallet {
  /** `http://127.0.0.1:<port>`: a local origin, which `serve --demo` accepts (CORS). */
  readonly url: string;
  /** The built page's JavaScript and HTML, for the size figure. */
  readonly outDir: string;
  close(): Promise<void>;
}

/** Builds the wallet (its vite.config.ts) into a temporary folder and serves it with vite's preview server. */
export async function serveWallet(): Promise<ServedWallet> {
  const outDir = mkdtempSync(path.join(tmpdir(), 'gateway-wallet-'));
  // A production build, as `npm run build` makes it: vite and the React plugin read NODE_ENV, which vitest
  // sets to `test` (React's development JSX against its production runtime would fail in the page).
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({ root: WALLET, mode: 'production', logLevel: 'error', build: { outDir, emptyOutDir: true } });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
  const port = await freePort();
  const server: PreviewServer = await preview({
    root: WALLET,
    configFile: false,
    logLevel: 'error',
    build: { outDir },
    preview: { host: '127.0.0.1', port, strictPort: true, open: false },
  });
  return {
    url: `http://127.0.0.1:${port}`,
    outDir,
    close: async () => {
      await server.close();
      rmSync(outDir, { recursive: true, force: true });
    },
  };
}

export interface RunningMock {
  readonly url: string;
  stop(): Promise<void>;
}

/** `npm run mock` as the test starts it: the front (failures on demand, paging that ends) before `prism`. */
export async function startMock(prism: string): Promise<RunningMock> {
  const front: Server = mockFront({ upstream: prism, document: spec });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(front.address() as AddressInfo).port}`,
    stop: async () => {
      front.closeAllConnections();
      await new Promise((resolve) => front.close(resolve));
    },
  };
}

interface Probes {
  __clickAt?: number;
  __firstPageAt?: number;
  __shown: Record<string, number>;
}

/** Records, in the page, the sign-in click, the first movement row after it, and each event's row (epoch ms). */
export async function addProbes(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const probes = window as unknown as Probes;
    probes.__shown = {};
    document.addEventListener(
      'click',
      (event) => {
        if ((event.target as Element | null)?.closest?.('#sign-in')) probes.__clickAt = Date.now();
      },
      true,
    );
    new MutationObserver(() => {
      if (probes.__clickAt && !probes.__firstPageAt && document.querySelector('#movements tbody tr')) {
        probes.__firstPageAt = Date.now();
      }
      for (const item of document.querySelectorAll('#events li[data-movement-id]')) {
        const id = item.getAttribute('data-movement-id') ?? '';
        probes.__shown[id] ??= Date.now();
      }
    }).observe(document, { childList: true, subtree: true });
  });
}

/** Milliseconds from the sign-in click to the first movement row. */
export async function signInToFirstPage(page: Page): Promise<number> {
  const [clickAt, firstPageAt] = await page.evaluate(() => {
    const probes = window as unknown as Probes;
    return [probes.__clickAt ?? Number.NaN, probes.__firstPageAt ?? Number.NaN];
  });
  return (firstPageAt ?? Number.NaN) - (clickAt ?? Number.NaN);
}

/** When the page showed the event of movement `id` (epoch ms). */
export function shownAt(page: Page, id: string): Promise<number | undefined> {
  return page.evaluate((wanted) => (window as unknown as Probes).__shown[wanted], id);
}
