#!/usr/bin/env node
// Serves the spec with Prism's mock on a fixed local port, CORS on, for frontend work with no backend.
//
//   npm run mock                 static examples from the spec on http://127.0.0.1:4010
//   npm run mock -- --dynamic    generated data (or send `Prefer: dynamic=true` per request)
//   MOCK_PORT=5000 npm run mock
//
// Per request: `Prefer: code=404` picks a documented response, `Prefer: code=400, example=<name>` a named
// example of it. An invalid request gets the first example of its error status: the generic one. A failure
// asked for on an event stream is answered as the server would (JSON), and a request with `after` gets the
// list's last page (`next_page`), not the first again (scripts/mock-front.mjs, in front of Prism).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mockFront } from './mock-front.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const prism = path.join(path.dirname(require.resolve('@stoplight/prism-cli/package.json')), 'dist/index.js');
const port = process.env.MOCK_PORT ?? '4010';
const host = process.env.MOCK_HOST ?? '127.0.0.1';
const dynamic = process.argv.includes('--dynamic');
const specFile = path.join(root, 'generated/openapi.json');

/** A free port of this machine's loopback, for Prism behind the front. */
const prismPort = await new Promise((resolve, reject) => {
  const probe = createServer();
  probe.once('error', reject);
  probe.listen(0, '127.0.0.1', () => {
    const { port: free } = probe.address();
    probe.close(() => resolve(free));
  });
});

const child = spawn(
  process.execPath,
  [
    prism,
    'mock',
    specFile,
    '--host',
    '127.0.0.1',
    '--port',
    String(prismPort),
    '--cors',
    ...(dynamic ? ['--dynamic'] : []),
  ],
  { stdio: 'inherit' },
);
const front = mockFront({
  upstream: `http://127.0.0.1:${prismPort}`,
  document: JSON.parse(readFileSync(specFile, 'utf8')),
});
front.on('error', (error) => {
  console.error(`cannot listen on ${host}:${port}: ${error.message}`);
  stop('SIGTERM');
  process.exitCode = 1;
});
front.listen(Number(port), host);
console.log(
  `mock of the gateway API on http://${host}:${port} (${dynamic ? 'dynamic data' : 'spec examples'}, CORS on)`,
);
const stop = (signal) => {
  if (child.exitCode === null) child.kill(signal);
  front.close();
  front.closeAllConnections();
};
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => stop(signal));
// npm stops a script by signalling its shell, which does not pass the signal on: when the process that
// started this one is gone, stop Prism too, rather than leave it serving.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) stop('SIGTERM');
}, 500).unref();
child.on('exit', (code) => process.exit(code ?? 0));
