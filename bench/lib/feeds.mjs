/**
 * The feed import scenarios' pieces: the movements file (generated once from the data set's generator and
 * cached), a timed run of the CLI (wall time, its own CPU time and peak RSS), and the follow latency (lines
 * written to `gateway movements import - --follow` at a steady rate, each polled through the API until it
 * answers).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { movementLines } from '../data.mjs';
import { BENCH, nodeCommand, quantile } from './common.mjs';

export const USAGE_PRELOAD = path.join(BENCH, 'lib/usage-on-exit.cjs');
const FORMAT = 'v1'; // bump when movementLines changes what it writes

/**
 * The NDJSON file of the data set's first `count` movements (bench/data/, not committed): generated once per
 * seed and size, reused by later runs. Returns its path, line count and size.
 */
export function movementsFile(seed, count, log = () => {}) {
  const dir = path.join(BENCH, 'data');
  const tag = createHash('sha256').update(`${FORMAT}\n${seed}`).digest('hex').slice(0, 10);
  const file = path.join(dir, `movements-${count}-${tag}.ndjson`);
  const meta = `${file}.json`;
  if (existsSync(file) && existsSync(meta)) {
    const known = JSON.parse(readFileSync(meta, 'utf8'));
    if (known.lines === count) return { file, ...known, cached: true };
  }
  mkdirSync(dir, { recursive: true });
  const started = Date.now();
  log(`[import] generating ${count.toLocaleString('en')} movements to ${path.relative(BENCH, file)} …`);
  const partial = `${file}.partial`;
  const fd = openSync(partial, 'w');
  let bytes = 0;
  let lines = 0;
  try {
    let chunk = [];
    for (const line of movementLines(seed, count)) {
      chunk.push(line);
      lines++;
      if (chunk.length === 10_000) {
        bytes += writeSync(fd, `${chunk.join('\n')}\n`);
        chunk = [];
      }
    }
    if (chunk.length) bytes += writeSync(fd, `${chunk.join('\n')}\n`);
  } finally {
    closeSync(fd);
  }
  renameSync(partial, file);
  const known = { seed, lines, bytes, seconds: Math.round((Date.now() - started) / 100) / 10 };
  const metaFd = openSync(meta, 'w');
  writeSync(metaFd, JSON.stringify(known));
  closeSync(metaFd);
  log(`[import] ${lines.toLocaleString('en')} lines, ${(bytes / 2 ** 20).toFixed(0)} MiB in ${known.seconds} s`);
  return { file, ...known, cached: false };
}

/**
 * Runs `node [nodeArgs] args…` (pinned to `core` when possible; `node`: another Node binary than this
 * process's) to completion, its standard input the file `stdinFile` through a pipe (`cat FILE |`) or
 * nothing; measures its wall time (spawn to exit) and, from the process itself (usage-on-exit.cjs), its CPU
 * time and peak RSS. Rejects when it fails.
 */
export function runTimed(args, { core = null, env = {}, stdinFile = null, cwd, usageFile, node }) {
  const { command, args: argv } = nodeCommand(core, ['--require', USAGE_PRELOAD, ...args], node);
  return new Promise((resolve, reject) => {
    rmSync(usageFile, { force: true });
    const cat = stdinFile ? spawn('cat', [stdinFile], { stdio: ['ignore', 'pipe', 'inherit'] }) : null;
    const started = performance.now();
    const child = spawn(command, argv, {
      cwd,
      env: { ...process.env, ...env, BENCH_USAGE_FILE: usageFile },
      stdio: [cat ? cat.stdout : 'ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => {
      out += c;
    });
    child.stderr.on('data', (c) => {
      err = (err + c).slice(-5000);
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      const wallSeconds = (performance.now() - started) / 1000;
      if (code !== 0) {
        reject(new Error(`${args.slice(1).join(' ')} failed (${code ?? signal}):\n${err || out}`));
        return;
      }
      let usage = null;
      try {
        usage = JSON.parse(readFileSync(usageFile, 'utf8'));
      } catch {}
      resolve({
        wallSeconds,
        cpuSeconds: usage ? (usage.userUs + usage.systemUs) / 1e6 : null,
        userSeconds: usage ? usage.userUs / 1e6 : null,
        systemSeconds: usage ? usage.systemUs / 1e6 : null,
        peakRssMiB: usage ? Math.round((usage.maxRssKiB / 1024) * 10) / 10 : null,
        stdout: out.trim(),
        stderrTail: err.trim().split('\n').slice(-3).join('\n'),
      });
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Writes `lines` (each `{ id, line, token }`) to `stdin` at `rate` lines a second, each in its own write,
 * and measures for each the time from its write to the first `GET /v1/movements/{id}` (with its account's
 * token) answering 200: `pollers` concurrent pollers, each taking the oldest written line not yet answered
 * nor being polled, waiting `pollGapMs` after a 404. Batches are committed whole and in order, so once one
 * line answers, the lines written before it do too: the pollers stay on the oldest lines. Resolves when
 * every line has answered or `settleMs` after the last write.
 */
export async function followLatency({ url, stdin, lines, rate, pollers = 4, pollGapMs = 5, settleMs = 10_000 }) {
  const written = []; // indexes of lines written and not yet answered, in write order
  const inFlight = new Set();
  const latencies = [];
  const statuses = {};
  let requests = 0;
  let nextLine = 0;
  let done = false;
  const start = performance.now();

  const writer = (async () => {
    while (nextLine < lines.length) {
      const due = Math.min(lines.length, Math.floor(((performance.now() - start) / 1000) * rate) + 1);
      while (nextLine < due) {
        const item = lines[nextLine];
        item.writtenAt = performance.now();
        stdin.write(`${item.line}\n`);
        written.push(nextLine);
        nextLine++;
      }
      await sleep(2);
    }
  })();

  const poller = async () => {
    while (!done) {
      const index = written.find((i) => !inFlight.has(i));
      if (index === undefined) {
        await sleep(1);
        continue;
      }
      inFlight.add(index);
      const item = lines[index];
      let status = 0;
      try {
        const response = await fetch(`${url}/v1/movements/${encodeURIComponent(item.id)}`, {
          headers: { authorization: `Bearer ${item.token}` },
        });
        status = response.status;
        await response.arrayBuffer();
      } catch {
        status = -1;
      }
      requests++;
      statuses[status] = (statuses[status] ?? 0) + 1;
      inFlight.delete(index);
      if (status === 200) {
        latencies.push(performance.now() - item.writtenAt);
        written.splice(written.indexOf(index), 1);
      } else await sleep(pollGapMs);
    }
  };

  const running = Array.from({ length: pollers }, poller);
  await writer;
  const writeSeconds = (performance.now() - start) / 1000;
  const deadline = performance.now() + settleMs;
  while (written.length > 0 && performance.now() < deadline) await sleep(10);
  done = true;
  await Promise.all(running);
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    lines: lines.length,
    delivered: latencies.length,
    rate: lines.length / writeSeconds,
    writeSeconds,
    p50: quantile(sorted, 0.5),
    p90: quantile(sorted, 0.9),
    p99: quantile(sorted, 0.99),
    max: sorted.at(-1) ?? null,
    requests,
    statuses,
  };
}
