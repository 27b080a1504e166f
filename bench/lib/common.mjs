/**
 * Shared helpers of the benchmark: a seeded PRNG, child processes pinned to a core, ports, peak RSS and
 * medians. Nothing here talks to the gateway itself.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BENCH = path.join(ROOT, 'bench');
export const CLI = path.join(ROOT, 'server/dist/cli.js');
export const PRISM_CLI = path.join(ROOT, 'node_modules/@stoplight/prism-cli/dist/index.js');
export const BUNDLED_SPEC = path.join(ROOT, 'generated/openapi.json');

/* ------------------------------------------------------------------ PRNG (sfc32 seeded by xmur3) */

function xmur3(text) {
  let h = 1779033703 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    h = Math.imul(h ^ text.charCodeAt(i), 3432918353);
    h = (h << 13) | (h >>> 19);
  }
  return () => {
    h = Math.imul(h ^ (h >>> 16), 2246822507);
    h = Math.imul(h ^ (h >>> 13), 3266489909);
    h ^= h >>> 16;
    return h >>> 0;
  };
}

const HEX = '0123456789abcdef';
export const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** A deterministic random source (sfc32): the same seed gives the same data set on every machine. */
export function createRng(seed) {
  const s = xmur3(String(seed));
  let a = s();
  let b = s();
  let c = s();
  let d = s();
  const u32 = () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  for (let i = 0; i < 15; i++) u32();
  const float = () => u32() / 4294967296;
  const int = (n) => Math.floor(float() * n);
  return {
    u32,
    float,
    int,
    pick: (list) => list[int(list.length)],
    bytes(n) {
      const out = new Uint8Array(n);
      for (let i = 0; i < n; i++) out[i] = u32() & 0xff;
      return out;
    },
    hex(n) {
      let out = '';
      for (let i = 0; i < n; i++) out += HEX[u32() & 15];
      return out;
    },
    chars(alphabet, n) {
      let out = '';
      for (let i = 0; i < n; i++) out += alphabet[int(alphabet.length)];
      return out;
    },
  };
}

/* ------------------------------------------------------------------ processes */

let pinningChecked;
/** Whether processes can be pinned: two or more cores and a working `taskset`. */
export function canPin() {
  if (pinningChecked === undefined) {
    pinningChecked =
      os.cpus().length >= 2 &&
      spawnSync('taskset', ['-c', '1', 'true'], { stdio: 'ignore' }).status === 0 &&
      spawnSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' }).status === 0;
  }
  return pinningChecked;
}

/**
 * The command line of a Node script, pinned to `core` when pinning is possible (taskset execs: same pid);
 * `node`: the Node binary (this process's by default; another line's in bench/node-lines.mjs).
 */
export function nodeCommand(core, args, node = process.execPath) {
  return canPin() && core !== null && core !== undefined
    ? { command: 'taskset', args: ['-c', String(core), node, ...args] }
    : { command: node, args };
}

/** Runs a Node script to completion (optionally pinned); resolves with its stdout, rejects with its stderr. */
export function runNode(
  args,
  { core = null, env = {}, input, quiet = false, timeoutMs = 30 * 60_000, cwd = ROOT, node } = {},
) {
  const { command, args: argv } = nodeCommand(core, args, node);
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, {
      cwd,
      env: { ...process.env, ...env },
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.stderr.on('data', (chunk) => {
      err += chunk;
      if (!quiet) process.stderr.write(chunk);
    });
    if (input !== undefined) child.stdin.end(input);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else
        reject(
          new Error(`${path.basename(args[0])} ${args.slice(1).join(' ')} failed (${code ?? signal}):\n${err || out}`),
        );
    });
  });
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitForPort(port, child, output, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`process exited with ${child.exitCode}:\n${output()}`);
    const open = await new Promise((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`nothing listened on ${port} within ${timeoutMs} ms:\n${output()}`);
}

/**
 * Starts a long-running Node process (a server) pinned to `core` (on the Node binary `node`, this process's
 * by default), waits for `port` to accept connections. Returns its pid, url, log and stop().
 */
export async function startService(
  name,
  args,
  { port, core = 0, env = {}, timeoutMs = 60_000, nodeArgs = [], cwd = ROOT, node },
) {
  const { command, args: argv } = nodeCommand(core, [...nodeArgs, ...args], node);
  const child = spawn(command, argv, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const collect = (chunk) => {
    log = (log + chunk.toString()).slice(-20_000);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  try {
    await waitForPort(port, child, () => log, timeoutMs);
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`${name}: ${error.message}`);
  }
  return {
    name,
    pid: child.pid,
    url: `http://127.0.0.1:${port}`,
    log: () => log,
    stop: (signal = 'SIGTERM', graceMs = 15_000) =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        child.once('exit', (code) => {
          clearTimeout(timer);
          resolve(code);
        });
        child.kill(signal);
      }),
  };
}

/* ------------------------------------------------------------------ memory */

/** Resets a process's peak RSS (Linux `clear_refs` 5); false when not allowed. */
export function resetPeakRss(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Peak resident set size (VmHWM) of a process, in MiB, or null when unknown. */
export function peakRssMiB(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]);
    return Number.isFinite(kb) ? Math.round((kb / 1024) * 10) / 10 : null;
  } catch {
    return null;
  }
}

/* ------------------------------------------------------------------ statistics */

export function median(values) {
  const sorted = values.filter((v) => typeof v === 'number' && Number.isFinite(v)).sort((x, y) => x - y);
  if (sorted.length === 0) return null;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The q-quantile (0..1) of a sorted numeric array (nearest rank). */
export function quantile(sorted, q) {
  if (sorted.length === 0) return null;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank];
}

export const isFile = (file) => existsSync(file);

/* ------------------------------------------------------------------ background load */

/** The machine's CPU jiffies since boot: idle and total (all cores). */
export function cpuTimes() {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const idle = line[3] + (line[4] ?? 0);
  const total = line.reduce((s, v) => s + v, 0);
  return { idle, total };
}

function processJiffies(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return Number(fields[11]) + Number(fields[12]); // utime + stime
  } catch {
    return 0;
  }
}

/**
 * The share of the machine's CPU (0..1, all cores) busy over `ms` with work other than this process and
 * `ownPids` (tests, builds running next to the benchmark) that would skew the numbers. Null without /proc.
 */
export async function backgroundBusy(ms = 500, ownPids = []) {
  try {
    const pids = [process.pid, ...ownPids];
    const a = cpuTimes();
    const ownA = pids.reduce((s, pid) => s + processJiffies(pid), 0);
    await new Promise((r) => setTimeout(r, ms));
    const b = cpuTimes();
    const ownB = pids.reduce((s, pid) => s + processJiffies(pid), 0);
    const total = b.total - a.total;
    return total > 0 ? Math.max(0, 1 - (b.idle - a.idle) / total - (ownB - ownA) / total) : null;
  } catch {
    return null;
  }
}
