#!/usr/bin/env node
// Serves the spec with Prism's mock on a fixed local port, CORS on, for frontend work with no backend.
//
//   npm run mock                 static examples from the spec on http://127.0.0.1:4010
//   npm run mock -- --dynamic    generated data (or send `Prefer: dynamic=true` per request)
//   MOCK_PORT=5000 npm run mock
//
// Per request: `Prefer: code=404` picks a documented response, `Prefer: code=400, example=<name>` a named
// example of it. An invalid request gets the first example of its error status: the generic one.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const prism = path.join(path.dirname(require.resolve('@stoplight/prism-cli/package.json')), 'dist/index.js');
const port = process.env.MOCK_PORT ?? '4010';
const host = process.env.MOCK_HOST ?? '127.0.0.1';
const dynamic = process.argv.includes('--dynamic');

const child = spawn(
  process.execPath,
  [
    prism,
    'mock',
    path.join(root, 'generated/openapi.json'),
    '--host',
    host,
    '--port',
    port,
    '--cors',
    ...(dynamic ? ['--dynamic'] : []),
  ],
  { stdio: 'inherit' },
);
console.log(
  `mock of the gateway API on http://${host}:${port} (${dynamic ? 'dynamic data' : 'spec examples'}, CORS on)`,
);
const stop = (signal) => {
  if (child.exitCode === null) child.kill(signal);
};
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => stop(signal));
// npm stops a script by signalling its shell, which does not pass the signal on: when the process that
// started this one is gone, stop Prism too, rather than leave it serving.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) stop('SIGTERM');
}, 500).unref();
child.on('exit', (code) => process.exit(code ?? 0));
