#!/usr/bin/env node
/**
 * The attack at its own scale: as `npm start` serves (`serve --demo` under a 160 MiB heap, the open-file
 * limit of this shell), two child processes open `--connections` TCP connections that send nothing, from
 * addresses 127.0.<1|2>.x (`--per-address` each, under the cap per address: this is the instance's cap at
 * work), and hold them. Then: does another address get an answer, what does /metrics say (served on a port
 * of its own, which the API port's caps do not concern), does the process live, and is it answered again
 * once they are gone. The idle timeouts are set to their longest (60 s, 30 s) so that the connections are
 * held, as by an attacker who opens them faster than they are let go; `--set KEY=VALUE` changes any setting
 * (`--set CONNECTIONS_PER_INSTANCE=1000000 --set CONNECTIONS_PER_ADDRESS=0`: as before the caps).
 *
 *   npx turbo run build --output-logs=errors-only
 *   node bench/connections-flood.mjs [--connections 21600] [--per-address 250] [--set KEY=VALUE …]
 */
// On the workspace's pinned Node, whatever Node started it (before any other import is evaluated).
import './lib/pinned.mjs';
import { fork, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = fileURLToPath(import.meta.url);
const CLI = path.resolve(path.dirname(here), '../server/dist/cli.js');
/** Connections being opened at once by each holder (the server's accept backlog is 511). */
const WAVE = 200;
/** The client that is not the attacker. */
const OTHER = '127.0.0.9';

if (process.argv[2] === '--holder') {
  // A child: opens `count` connections from 127.0.<block>.1, .2, … (`perAddress` each), holds them, and
  // reports how many are still open; closes them when told.
  const [port, block, count, perAddress] = process.argv.slice(3).map(Number);
  const sockets = [];
  for (let done = 0; done < count; done += WAVE) {
    await Promise.all(
      Array.from(
        { length: Math.min(WAVE, count - done) },
        (_, k) =>
          new Promise((resolve) => {
            const localAddress = `127.0.${block}.${1 + Math.floor((done + k) / perAddress)}`;
            const socket = net.connect({ host: '127.0.0.1', port, localAddress });
            sockets.push(socket);
            socket.on('error', () => resolve());
            socket.once('connect', () => resolve());
            socket.once('close', () => resolve());
          }),
      ),
    );
  }
  await new Promise((resolve) => setTimeout(resolve, 1000));
  process.send({ open: sockets.filter((s) => s.readyState === 'open').length });
  process.once('message', () => {
    for (const socket of sockets) socket.destroy();
    setTimeout(() => process.exit(0), 200);
  });
} else {
  await flood();
}

/** GET on `port` from OTHER: the status (or the error's code) and how long it took. */
function get(port, url) {
  return new Promise((resolve) => {
    const started = performance.now();
    const ms = () => Math.round(performance.now() - started);
    const request = http.get(
      { host: '127.0.0.1', port, path: url, localAddress: OTHER, agent: false, timeout: 5000 },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => {
          body += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode, ms: ms(), body }));
      },
    );
    request.on('timeout', () => request.destroy(Object.assign(new Error('timed out'), { code: 'TIMEOUT' })));
    request.on('error', (error) => resolve({ status: error.code, ms: ms(), body: '' }));
  });
}

function freePort() {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function flood() {
  const { values } = parseArgs({
    options: {
      connections: { type: 'string', default: '21600' },
      'per-address': { type: 'string', default: '250' },
      set: { type: 'string', multiple: true, default: [] },
    },
  });
  const count = Number(values.connections);
  const perAddress = Number(values['per-address']);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gateway-flood-'));
  const [port, metricsPort] = [await freePort(), await freePort()];
  const server = spawn(process.execPath, ['--max-old-space-size=160', CLI, 'serve', '--demo'], {
    env: {
      ...process.env,
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      DATA_DIR: dir,
      DATABASE_URL: `sqlite:${path.join(dir, 'gateway.db')}`,
      LOG_LEVEL: 'warn',
      IDLE_CONNECTION_TIMEOUT_MS: '60000',
      HEADERS_TIMEOUT_MS: '30000',
      ...Object.fromEntries(values.set.map((pair) => pair.split('=', 2))),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let exited = null;
  server.once('exit', (code, signal) => {
    exited = signal ?? code;
  });
  for (let i = 0; i < 150 && (await get(port, '/health/live')).status !== 200; i++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
  }

  const started = performance.now();
  const halves = [Math.ceil(count / 2), Math.floor(count / 2)];
  const holders = halves.map((n, i) =>
    fork(here, ['--holder', String(port), String(i + 1), String(n), String(perAddress)]),
  );
  const held = await Promise.all(holders.map((h) => new Promise((resolve) => h.once('message', resolve))));
  const openSeconds = Math.round(performance.now() - started) / 1000;
  const other = await get(port, '/v1/platforms');
  const scrape = await get(metricsPort, '/metrics');
  const metrics = Object.fromEntries(
    scrape.body
      .split('\n')
      .filter((line) =>
        /^gateway_(connections_|process_resident_memory_bytes|process_open_fds|nodejs_heap_size_used_bytes)/.test(line),
      )
      .map((line) => [line.slice(0, line.lastIndexOf(' ')), Number(line.slice(line.lastIndexOf(' ') + 1))]),
  );
  const aliveWhileHeld = exited === null;
  for (const holder of holders) holder.send('close');
  await Promise.all(holders.map((h) => new Promise((resolve) => h.once('exit', resolve))));
  const afterwards = await get(port, '/v1/platforms');
  console.log(
    JSON.stringify(
      {
        connections: count,
        perAddress,
        set: values.set,
        openSeconds,
        heldByClients: held.reduce((sum, h) => sum + h.open, 0),
        otherClientWhileHeld: { status: other.status, ms: other.ms },
        metricsPort: scrape.status,
        metrics,
        aliveWhileHeld,
        otherClientAfterwards: { status: afterwards.status, ms: afterwards.ms },
        exited,
      },
      null,
      2,
    ),
  );
  if (exited === null) {
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
  }
  rmSync(dir, { recursive: true, force: true });
}
