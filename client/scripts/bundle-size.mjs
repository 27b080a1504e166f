#!/usr/bin/env node
// The browser bundle's size of the built client (dist/, or the folder given): two apps bundled by vite
// (minified, tree-shaken), one that signs in and lists movements with webStorage, one that keeps every
// export. Prints raw and gzipped KiB of their JavaScript.
//
//   npm run build && node client/scripts/bundle-size.mjs [client/dist]
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';

const dist = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '../dist'));
const apps = {
  typical: `import { createGatewayClient, signerFromSeed, webStorage } from '${dist}/index.js';
const client = createGatewayClient({ baseUrl: location.origin, chainId: 'W', clientId: 'x', storage: webStorage(localStorage) });
await client.login(signerFromSeed('a seed'));
for await (const movement of client.movements()) console.log(movement);`,
  everything: `import * as all from '${dist}/index.js'; window.all = all;`,
};
const work = mkdtempSync(path.join(tmpdir(), 'client-size-'));
try {
  for (const [name, code] of Object.entries(apps)) {
    const root = path.join(work, name);
    mkdirSync(root);
    writeFileSync(path.join(root, 'main.js'), code);
    writeFileSync(path.join(root, 'index.html'), '<script type="module" src="./main.js"></script>');
    await build({ root, logLevel: 'error', configFile: false, build: { outDir: 'out' } });
    const assets = path.join(root, 'out/assets');
    let raw = 0;
    let gzipped = 0;
    for (const file of readdirSync(assets).filter((f) => f.endsWith('.js'))) {
      const bytes = readFileSync(path.join(assets, file));
      raw += bytes.length;
      gzipped += gzipSync(bytes).length;
    }
    console.log(`${name}: ${(raw / 1024).toFixed(1)} KiB, ${(gzipped / 1024).toFixed(1)} KiB gzipped`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
