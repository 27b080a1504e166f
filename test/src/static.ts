/**
 * Serves the built client to a browser as plain ES modules (no bundler): its own files (the generated code
 * and the ledger primitives are compiled into them), its dependencies' from node_modules, and a page that maps
 * the bare imports to them.
 */
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const ALLOWED = ['/client/dist/', '/node_modules/'];

/** The import map that resolves the client's bare imports to files the server serves. */
export const importMap = {
  imports: {
    '@gateway/client': '/client/dist/index.js',
    'openapi-fetch': '/node_modules/openapi-fetch/dist/index.mjs',
    '@noble/curves/': '/node_modules/@noble/curves/',
    '@noble/hashes/': '/node_modules/@noble/hashes/',
    bs58: '/node_modules/bs58/src/esm/index.js',
    'base-x': '/node_modules/base-x/src/esm/index.js',
    'eventsource-parser': '/node_modules/eventsource-parser/dist/index.js',
  },
};

export function servePage(page: string, port = 0): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    const pathname = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname);
    if (pathname === '/') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return response.end(page);
    }
    const file = path.join(root, path.normalize(pathname));
    if (
      !ALLOWED.some((prefix) => pathname.startsWith(prefix)) ||
      !file.startsWith(root) ||
      !existsSync(file) ||
      !statSync(file).isFile()
    ) {
      response.writeHead(404);
      return response.end();
    }
    response.writeHead(200, {
      'content-type': file.endsWith('.js') || file.endsWith('.mjs') ? 'text/javascript' : 'application/octet-stream',
    });
    createReadStream(file).pipe(response);
  });
  return new Promise((resolve) => {
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      resolve({ url: `http://127.0.0.1:${port}`, close: () => new Promise((done) => server.close(() => done())) });
    });
  });
}
