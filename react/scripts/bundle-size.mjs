#!/usr/bin/env node
// What the hooks add to an app's browser bundle, measured as client/scripts/bundle-size.mjs measures the
// client (vite build, minified, tree-shaken; the JavaScript's raw and gzipped KiB): the client's typical app
// alone, then the same app with the hooks (a provider, the session, an infinite list, a query, the events),
// then every export of both. React, react-dom and TanStack Query are the app's own (peers): left out of
// both, so that the difference is the hooks' (with openapi-react-query).
//
//   npm run build && node react/scripts/bundle-size.mjs [client/dist] [react/dist]
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));
const client = path.resolve(process.argv[2] ?? path.join(here, '../../client/dist'));
const hooks = path.resolve(process.argv[3] ?? path.join(here, '../dist'));
const PEERS = ['react', 'react/jsx-runtime', 'react-dom', 'react-dom/client', '@tanstack/react-query'];

const typical = `import { createGatewayClient, signerFromSeed, webStorage } from '${client}/index.js';
const client = createGatewayClient({ baseUrl: location.origin, chainId: 'W', clientId: 'x', storage: webStorage(localStorage) });
await client.login(signerFromSeed('a seed'));
for await (const movement of client.movements()) console.log(movement);`;
const withHooks = `import { createGatewayClient, signerFromSeed, webStorage } from '${client}/index.js';
import { GatewayProvider, useAccountEvents, useGatewayInfiniteQuery, useGatewayQuery, useLogin, useSession } from '${hooks}/index.js';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
const client = createGatewayClient({ baseUrl: location.origin, chainId: 'W', clientId: 'x', storage: webStorage(localStorage) });
function App() {
  const session = useSession();
  const login = useLogin();
  const list = useGatewayInfiniteQuery('/v1/movements');
  const platform = useGatewayQuery('get', '/v1/platforms/{id}', { params: { path: { id: 'ETH' } } });
  const events = useAccountEvents();
  if (session.status !== 'signed_in') return createElement('button', { onClick: () => login.mutate({ signer: signerFromSeed('a seed') }) }, 'sign in');
  return createElement('pre', null, JSON.stringify([list.data, platform.data, events.state]));
}
createRoot(document.body).render(createElement(QueryClientProvider, { client: new QueryClient() }, createElement(GatewayProvider, { client }, createElement(App))));`;
const apps = {
  'client (typical)': typical,
  'client + hooks (typical)': withHooks,
  'client (every export)': `import * as all from '${client}/index.js'; window.all = all;`,
  'client + hooks (every export)': `import * as all from '${client}/index.js'; import * as hooks from '${hooks}/index.js'; window.all = [all, hooks];`,
};

const work = mkdtempSync(path.join(tmpdir(), 'react-size-'));
const sizes = {};
try {
  for (const [name, code] of Object.entries(apps)) {
    const root = path.join(work, name.replace(/\W+/g, '-'));
    mkdirSync(root);
    writeFileSync(path.join(root, 'main.js'), code);
    writeFileSync(path.join(root, 'index.html'), '<script type="module" src="./main.js"></script>');
    await build({
      root,
      logLevel: 'error',
      configFile: false,
      // The hooks' own imports resolve from the workspace (openapi-react-query, the peers).
      resolve: { alias: { '@gateway/client': `${client}/index.js` } },
      build: { outDir: 'out', rollupOptions: { external: PEERS } },
    });
    const assets = path.join(root, 'out/assets');
    let raw = 0;
    let gzipped = 0;
    for (const file of readdirSync(assets).filter((f) => f.endsWith('.js'))) {
      const bytes = readFileSync(path.join(assets, file));
      raw += bytes.length;
      gzipped += gzipSync(bytes).length;
    }
    sizes[name] = gzipped;
    console.log(`${name}: ${(raw / 1024).toFixed(1)} KiB, ${(gzipped / 1024).toFixed(1)} KiB gzipped`);
  }
  for (const kind of ['typical', 'every export']) {
    const added = sizes[`client + hooks (${kind})`] - sizes[`client (${kind})`];
    console.log(`the hooks add (${kind}): ${(added / 1024).toFixed(1)} KiB gzipped (goal: at most 5 KB)`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
