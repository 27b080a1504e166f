#!/usr/bin/env node
// Serves the spec with Prism's mock on a fixed local port, CORS on, for frontend work with no backend.
//
//   npm run mock                 static examples from the spec on http://127.0.0.1:4010
//   npm run mock -- --dynamic    generated data (or send `Prefer: dynamic=true` per request)
//   MOCK_PORT=5000 npm run mock
//
// It listens, and says so, once Prism answers; Prism's log is passed on with the front's address in place of
// Prism's own (an internal port), its "listening" line left out.
//
// Per request: `Prefer: code=404` picks a documented response, `Prefer: code=400, example=<name>` a named
// example of it. An invalid request gets a 400 ErrorBody that names its violation (10200 or 10201, with
// `details.parameter`; Prism's own list in the `sl-violations` header). A failure
// asked for on an event stream is answered as the server would (JSON), and a request with `after` gets the
// list's last page (`next_page`), not the first again (scripts/mock-front.mjs, in front of Prism).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect, createServer } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
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

const upstream = `http://127.0.0.1:${prismPort}`;
const address = `http://${host}:${port}`;
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
  { stdio: ['ignore', 'pipe', 'pipe'] },
);
// Prism's log names its own (internal) address: the user's is the front's.
for (const [from, to] of [
  [child.stdout, process.stdout],
  [child.stderr, process.stderr],
]) {
  createInterface({ input: from, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) => {
    if (line.includes('Prism is listening on')) return;
    to.write(`${line.replaceAll(upstream, address)}\n`);
  });
}

/** Whether Prism accepts connections (a bare TCP probe: an HTTP one would be in its log). */
const answers = () =>
  new Promise((resolve) => {
    const probe = connect(prismPort, '127.0.0.1');
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });

const front = mockFront({ upstream, document: JSON.parse(readFileSync(specFile, 'utf8')) });
front.on('error', (error) => {
  console.error(`cannot listen on ${host}:${port}: ${error.message}`);
  stop('SIGTERM');
  process.exitCode = 1;
});
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
child.on('close', (code) => process.exit(code ?? 0));

// The front listens once Prism does, so that its first answer is Prism's and not a 502.
while (child.exitCode === null && !(await answers())) await new Promise((resolve) => setTimeout(resolve, 50));
if (child.exitCode === null) {
  front.listen(Number(port), host, () => {
    console.log(`mock of the gateway API on ${address} (${dynamic ? 'dynamic data' : 'spec examples'}, CORS on)`);
  });
}
