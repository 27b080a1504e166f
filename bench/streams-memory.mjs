#!/usr/bin/env node
/**
 * What one open event stream (GET /v1/events) costs the server's memory: the gateway (built, SQLite) runs in
 * this process, a child process opens the streams over loopback and holds them; the heap (after a full
 * collection) and the resident set are read before, with the streams open, and after they close.
 * The figure behind the per-instance default of event streams (server/src/domain/event-stream-limits.ts).
 *
 *   npx turbo run build --output-logs=errors-only
 *   node --expose-gc bench/streams-memory.mjs [--streams 3000]
 */
// On the workspace's pinned Node, whatever Node started it (before any other import is evaluated).
import './lib/pinned.mjs';
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { signerFromSeed } from '@gateway/client';
import { askHolder, heldMemoryReport, measureHeld } from './lib/held-memory.mjs';
import { injectedAccessToken } from './lib/inject-grant.mjs';

const here = fileURLToPath(import.meta.url);

if (process.argv[2] === '--holder') {
  // The child: opens the streams it is asked for and holds them until told to let go.
  const requests = [];
  process.on('message', async (message) => {
    if (message.open) {
      const { url, token, count } = message.open;
      await Promise.all(
        Array.from(
          { length: count },
          () =>
            new Promise((resolve, reject) => {
              const request = http.get(
                url,
                { agent: false, headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } },
                (response) => {
                  if (response.statusCode !== 200) reject(new Error(`status ${response.statusCode}`));
                  response.once('data', () => resolve());
                  response.on('error', () => {});
                },
              );
              request.on('error', reject);
              requests.push(request);
            }),
        ),
      ).then(
        () => process.send({ opened: requests.length }),
        (error) => process.send({ failed: String(error) }),
      );
    }
    if (message.close) {
      for (const request of requests.splice(0)) request.destroy();
      process.send({ closed: true });
    }
  });
} else {
  await measure();
}

async function measure() {
  if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc');
  const { values } = parseArgs({ options: { streams: { type: 'string', default: '3000' } } });
  const count = Number(values.streams);
  const serverDist = path.resolve(path.dirname(here), '../server/dist');
  const { buildApp } = await import(path.join(serverDist, 'app.js'));
  const { testConfig } = await import(path.join(serverDist, 'config.js'));

  const dir = mkdtempSync(path.join(os.tmpdir(), 'gateway-streams-'));
  const config = testConfig({
    dataDir: dir,
    databaseUrl: `sqlite:${path.join(dir, 'gateway.db')}`,
    eventStreamsPerAccount: 10_000,
    eventStreamsPerInstance: 1_000_000,
    // Every stream comes from loopback: no cap per address.
    connectionsPerAddress: 0,
  });
  const app = await buildApp(config);
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const signer = signerFromSeed('streams memory measurement, not for real funds');
  const accessToken = await injectedAccessToken(app, signer, 3600);

  const holder = fork(here, ['--holder'], { stdio: 'inherit' });
  const url = `${base}/v1/events`;
  const samples = await measureHeld(askHolder(holder), {
    warmUp: { url, token: accessToken, count: 100 },
    open: { url, token: accessToken, count },
  });
  holder.kill();
  await app.close();
  rmSync(dir, { recursive: true, force: true });
  console.log(JSON.stringify({ streams: count, ...heldMemoryReport(count, samples, 'perStreamKiB') }, null, 2));
}
