#!/usr/bin/env node
/**
 * The sign-in storm's two halves, each a process of its own (bench/scenarios/storm.mjs).
 *
 *   node bench/lib/storm-load.mjs passwords N SEED OUT [CHAIN_ID] [CLIENT_ID]
 *     N accounts never seen (`signerFromSeed(SEED, { nonce: i })`), a password each, made in worker threads
 *     (about 4 ms each): OUT is { chainId, clientId, grants: [{ username, password }] } (lib/crypto-rate.mjs
 *     reads the same file).
 *   node bench/lib/storm-load.mjs load CONFIG
 *     CONFIG: { targets: [{ url, pid }], file: OUT above, connections (per target) }. Every password is sent
 *     once, as fast as the targets answer: `connections` keep-alive connections to each target, each taking
 *     the next password not sent yet as soon as it has its answer (the load spread over the targets). Prints
 *     { grants, seconds, perSecond, p50, p99, statusCodes, failures, perTarget: [grants sent],
 *     serverCpuSeconds: [per target] } (latency of every response; CPU time of each server process from
 *     /proc/<pid>/stat around the storm).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { passwordFor, signerFromSeed } from '@gateway/client';
import { quantile } from './common.mjs';

if (!isMainThread) {
  const { seed, from, to, chainId, clientId, expiry } = workerData;
  const out = [];
  for (let i = from; i < to; i++) {
    const signer = signerFromSeed(seed, { nonce: i });
    out.push({ username: signer.publicKey, password: await passwordFor(signer, chainId, clientId, expiry) });
  }
  parentPort.postMessage(out);
} else if (process.argv[2] === 'passwords') {
  const [, , , n, seed, outFile, chainId = 'W', clientId = 'waves.exchange'] = process.argv;
  const count = Number(n);
  const expiry = Math.floor(Date.now() / 1000) + 86_400;
  const threads = Math.max(1, Math.min(os.availableParallelism?.() ?? os.cpus().length, 4));
  const per = Math.ceil(count / threads);
  const parts = await Promise.all(
    Array.from(
      { length: threads },
      (_, t) =>
        new Promise((resolve, reject) => {
          const worker = new Worker(new URL(import.meta.url), {
            workerData: { seed, from: t * per, to: Math.min(count, (t + 1) * per), chainId, clientId, expiry },
          });
          worker.once('message', resolve);
          worker.once('error', reject);
        }),
    ),
  );
  writeFileSync(outFile, JSON.stringify({ chainId, clientId, grants: parts.flat() }));
} else {
  const config = JSON.parse(readFileSync(process.argv[3], 'utf8'));
  const { clientId, grants } = JSON.parse(readFileSync(config.file, 'utf8'));
  const bodies = grants.map((g) =>
    Buffer.from(
      new URLSearchParams({ grant_type: 'password', scope: 'general', client_id: clientId, ...g }).toString(),
    ),
  );
  const cpuSeconds = (pid) => {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  };
  const targets = config.targets.map((t) => {
    const url = new URL(t.url);
    return { ...t, host: url.hostname, port: Number(url.port), agent: new http.Agent({ keepAlive: true }), sent: 0 };
  });
  const post = (target, body) =>
    new Promise((resolve) => {
      const request = http.request(
        {
          host: target.host,
          port: target.port,
          agent: target.agent,
          method: 'POST',
          path: '/v1/oauth2/token',
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': body.length },
        },
        (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode));
        },
      );
      request.on('error', () => resolve(0));
      request.end(body);
    });
  const latencies = new Float64Array(bodies.length);
  const statusCodes = {};
  let next = 0;
  const worker = async (target) => {
    for (;;) {
      const i = next++;
      if (i >= bodies.length) return;
      target.sent++;
      const started = performance.now();
      const status = await post(target, bodies[i]);
      latencies[i] = performance.now() - started;
      statusCodes[status] = (statusCodes[status] ?? 0) + 1;
    }
  };
  const cpuBefore = targets.map((t) => cpuSeconds(t.pid));
  const started = performance.now();
  // The connections of the targets interleaved, so that requests are handed out to them in turn.
  const workers = [];
  for (let c = 0; c < config.connections; c++) for (const t of targets) workers.push(worker(t));
  await Promise.all(workers);
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = targets.map((t) => cpuSeconds(t.pid));
  const sorted = Array.from(latencies).sort((a, b) => a - b);
  process.stdout.write(
    `${JSON.stringify({
      grants: bodies.length,
      seconds,
      perSecond: bodies.length / seconds,
      p50: quantile(sorted, 0.5),
      p99: quantile(sorted, 0.99),
      statusCodes,
      failures: bodies.length - (statusCodes[200] ?? 0),
      perTarget: targets.map((t) => t.sent),
      serverCpuSeconds: cpuAfter.map((after, i) => after - cpuBefore[i]),
    })}\n`,
  );
  for (const t of targets) t.agent.destroy();
}
