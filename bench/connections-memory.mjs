#!/usr/bin/env node
/**
 * What one idle TCP connection (one that sends nothing) costs the server's memory: the gateway (built,
 * SQLite, no cap per address, timeouts at their longest) runs in this process, a child process opens the
 * connections over loopback and holds them; the heap (after a full collection) and the resident set are read
 * before, with the connections open, and after they close.
 * The figure behind the per-instance default of connections (server/src/lib/connection-caps.ts).
 *
 *   npx turbo run build --output-logs=errors-only
 *   node --expose-gc bench/connections-memory.mjs [--connections 5000]
 */
// On the workspace's pinned Node, whatever Node started it (before any other import is evaluated).
import './lib/pinned.mjs';
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { askHolder, heldMemoryReport, measureHeld } from './lib/held-memory.mjs';

const here = fileURLToPath(import.meta.url);
/** Connections being opened at once (the server's accept backlog is 511). */
const WAVE = 400;

if (process.argv[2] === '--holder') {
  // The child: opens the connections it is asked for and holds them until told to let go.
  const sockets = [];
  process.on('message', async (message) => {
    if (message.open) {
      const { port, count } = message.open;
      for (let done = 0; done < count; done += WAVE) {
        await Promise.all(
          Array.from(
            { length: Math.min(WAVE, count - done) },
            () =>
              new Promise((resolve) => {
                const socket = net.connect({ host: '127.0.0.1', port });
                socket.on('error', () => {});
                socket.once('connect', resolve);
                socket.once('close', resolve);
                sockets.push(socket);
              }),
          ),
        );
      }
      const open = sockets.filter((s) => s.readyState === 'open').length;
      process.send(open === count ? { opened: open } : { failed: `${count - open} of ${count} connections closed` });
    }
    if (message.close) {
      for (const socket of sockets.splice(0)) socket.destroy();
      process.send({ closed: true });
    }
  });
} else {
  await measure();
}

async function measure() {
  if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc');
  const { values } = parseArgs({ options: { connections: { type: 'string', default: '5000' } } });
  const count = Number(values.connections);
  const serverDist = path.resolve(path.dirname(here), '../server/dist');
  const { buildApp } = await import(path.join(serverDist, 'app.js'));
  const { testConfig } = await import(path.join(serverDist, 'config.js'));

  const dir = mkdtempSync(path.join(os.tmpdir(), 'gateway-connections-'));
  const config = testConfig({
    dataDir: dir,
    databaseUrl: `sqlite:${path.join(dir, 'gateway.db')}`,
    connectionsPerAddress: 0,
    connectionsPerInstance: 1_000_000,
    idleConnectionTimeoutMs: 60_000,
    headersTimeoutMs: 30_000,
  });
  const app = await buildApp(config);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address();

  const holder = fork(here, ['--holder'], { stdio: 'inherit' });
  const samples = await measureHeld(askHolder(holder), { warmUp: { port, count: 200 }, open: { port, count } });
  holder.kill();
  await app.close();
  rmSync(dir, { recursive: true, force: true });
  console.log(JSON.stringify({ connections: count, ...heldMemoryReport(count, samples, 'perConnectionKiB') }, null, 2));
}
