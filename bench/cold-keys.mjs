#!/usr/bin/env node
/**
 * Cold keys: what a ledger key never seen before costs the gateway, beside a key seen before.
 *
 *   npx turbo run build && node bench/cold-keys.mjs [--accounts 5000] [--keys 500] [--rounds 3]
 *       [--concurrency 64] [--warm-up 500] [--store sqlite|pg] [--baseline-build DIR] [--profile]
 *
 * 1. Per key, in this process (CPU time, process.cpuUsage; median of the rounds, each on keys of its own):
 *    the prime-order subgroup check of @noble/curves (decompression, isSmallOrder, isTorsionFree: the check
 *    before issue 29) and the gateway's X25519 check (server/src/crypto/subgroup.ts); the whole conversion
 *    of a key before (noble check, key object from DER) and now (edwardsKeyOf, key object from a JWK); and
 *    verifyLedgerSignature for a key not seen (cold) and seen (warm).
 * 2. Grants: ACCOUNTS accounts never seen sign in with the password grant (CONCURRENCY in flight) against one
 *    `gateway serve` (this checkout's server/dist, pinned to core 0, this process on core 1) on a fresh
 *    database, after WARM_UP accounts of its own signed in twice (JIT warm-up, after every start, not
 *    measured): "new account, cold key"; then the same passwords again: "known account, warm key"; then the
 *    gateway restarted (empty key cache) and the same again: "known account, cold key". Server CPU per grant
 *    (/proc/PID/stat, ticks of 10 ms), grants/s, p50 and p99. With --baseline-build DIR (a checkout built
 *    before the change: `git archive <commit> | tar -x -C DIR`, node_modules linked, `npx tsc -p
 *    server/tsconfig.build.json`), its gateway runs the same phases, each phase alternating between the two.
 *    Then this gateway's key-cache lines of /metrics.
 * --profile runs this checkout's gateway under `node --cpu-prof` and prints the top self time over the
 * "new account, cold key" phase alone (bench/lib/profile-summary.mjs; the profile stays in the temp folder).
 * Keys and passwords are made here with @noble/curves (the ledger's scheme, deterministic: seeded scalars).
 */
// On the workspace's pinned Node, whatever Node started it (before any other import is evaluated).
import './lib/pinned.mjs';
import { spawnSync } from 'node:child_process';
import { createPublicKey, generateKeyPairSync, randomBytes, verify } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import vm from 'node:vm';
import { ledgerMessageBytes, tokenText } from '@gateway/ledger';
import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToNumberLE, numberToBytesLE } from '@noble/curves/utils.js';
import { sha512 } from '@noble/hashes/sha2.js';
import bs58 from 'bs58';
import { edwardsKeyOf, verifyLedgerSignature } from '../server/dist/crypto/curve25519.js';
import { ENTRY_BYTES, KEY_CACHE_BYTES, KeyCache } from '../server/dist/crypto/key-cache.js';
import { inPrimeOrderSubgroup } from '../server/dist/crypto/subgroup.js';
import { CLI, canPin, createRng, freePort, median, quantile, ROOT, runNode, startService } from './lib/common.mjs';
import { formatSummary, summarizeProfile } from './lib/profile-summary.mjs';
import { TRACING_OFF } from './lib/tracing.mjs';

const { values: options } = parseArgs({
  options: {
    accounts: { type: 'string', default: '5000' },
    keys: { type: 'string', default: '500' },
    rounds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '64' },
    store: { type: 'string', default: 'sqlite' },
    'warm-up': { type: 'string', default: '500' },
    'baseline-build': { type: 'string' },
    profile: { type: 'boolean', default: false },
  },
});
const ACCOUNTS = Number(options.accounts);
const KEYS = Number(options.keys);
const ROUNDS = Number(options.rounds);
const WARM_UP = Number(options['warm-up']);
const CHAIN_ID = 'W';
const CLIENT_ID = 'waves.exchange';
const Point = ed25519.Point;
const Fp = Point.Fp;
const P = Fp.ORDER;
const L = Point.Fn.ORDER;
const log = (line) => process.stdout.write(`${line}\n`);
const fmt = (n, digits = 0) =>
  n == null ? '-' : n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/* ------------------------------------------------------------------ keys and passwords (ledger scheme) */

const rng = createRng('cold-keys bench');
function account() {
  const priv = rng.bytes(32);
  priv[0] &= 248;
  priv[31] &= 127;
  priv[31] |= 64;
  const a = bytesToNumberLE(priv) % L;
  const A = Point.BASE.multiply(a);
  const y = A.toAffine().y;
  const u = numberToBytesLE(Fp.div(Fp.add(1n, y), Fp.sub(1n, y)), 32);
  return { priv, a, encoded: A.toBytes(), u, username: bs58.encode(u) };
}
function sign({ priv, a, encoded }, message) {
  const r = bytesToNumberLE(sha512(new Uint8Array([...priv, ...message]))) % L;
  const R = Point.BASE.multiply(r).toBytes();
  const k = bytesToNumberLE(sha512(new Uint8Array([...R, ...encoded, ...message]))) % L;
  const signature = new Uint8Array([...R, ...numberToBytesLE((r + k * a) % L, 32)]);
  signature[63] |= encoded[31] & 0x80;
  return signature;
}
const expiry = String(Math.floor(Date.now() / 1000) + 86_400);
const message = ledgerMessageBytes(tokenText(CHAIN_ID, CLIENT_ID, expiry));

/* ------------------------------------------------------------------ 1. per key */

/** The conversion before issue 29: noble's subgroup check, then a key object from DER (SPKI). */
const SMALL_ORDER_U = new Set([
  0n,
  1n,
  P - 1n,
  325606250916557431795983626356110631294008115727848805560023387167927233504n,
  39382357235489614581723060781553021112529911719440698176882885853963445705823n,
]);
function formerEdwardsKeyOf(publicKey) {
  if (publicKey.length !== 32 || publicKey[31] & 0x80) return null;
  const u = bytesToNumberLE(publicKey);
  if (u >= P || SMALL_ORDER_U.has(u)) return null;
  const encoded = numberToBytesLE(Fp.div(Fp.sub(u, 1n), Fp.add(u, 1n)), 32);
  try {
    const point = Point.fromBytes(encoded);
    if (point.isSmallOrder() || !point.isTorsionFree()) return null;
  } catch {
    return null;
  }
  return encoded;
}
const SPKI = Buffer.from('302a300506032b6570032100', 'hex');
const formerKeyObject = (u, signBit) => {
  const y = formerEdwardsKeyOf(u);
  y[31] |= signBit;
  return createPublicKey({ key: Buffer.concat([SPKI, y]), format: 'der', type: 'spki' });
};
const nobleCheck = (u) => {
  const y = numberToBytesLE(Fp.div(Fp.sub(bytesToNumberLE(u), 1n), Fp.add(bytesToNumberLE(u), 1n)), 32);
  const point = Point.fromBytes(y);
  return !point.isSmallOrder() && point.isTorsionFree();
};
const newKeyObject = (u, signBit) => {
  const y = edwardsKeyOf(u);
  y[31] |= signBit;
  return createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(y).toString('base64url') },
    format: 'jwk',
  });
};

function perKey() {
  const started = performance.now();
  const sets = Array.from({ length: ROUNDS }, () =>
    Array.from({ length: KEYS }, () => {
      const acct = account();
      const signature = sign(acct, message);
      return { u: acct.u, signature, signBit: signature[63] & 0x80 };
    }),
  );
  log(`per key: ${ROUNDS} × ${KEYS} keys made in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const former = Math.min(KEYS, 200); // the former check is slow: fewer keys a round
  const plain = (s) => Uint8Array.from(s, (b, i) => (i === 63 ? b & 0x7f : b));
  const cases = [
    ['subgroup check', '@noble/curves isTorsionFree', former, (k) => nobleCheck(k.u)],
    ['subgroup check', 'X25519 (node:crypto)', KEYS, (k) => inPrimeOrderSubgroup(k.u)],
    ['key conversion', 'before (noble, DER)', former, (k) => !!formerKeyObject(k.u, k.signBit)],
    ['key conversion', 'now (X25519, JWK)', KEYS, (k) => !!newKeyObject(k.u, k.signBit)],
    [
      'verify',
      'before, cold key',
      former,
      (k) => verify(null, message, formerKeyObject(k.u, k.signBit), plain(k.signature)),
    ],
    ['verify', 'now, cold key', KEYS, (k) => verifyLedgerSignature(k.u, message, k.signature)],
    ['verify', 'now, warm key', KEYS, (k) => verifyLedgerSignature(k.u, message, k.signature)],
  ];
  const results = cases.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    cases.forEach(([, , count, fn], i) => {
      const keys = sets[round].slice(0, count);
      const before = process.cpuUsage();
      for (const k of keys) if (fn(k) !== true) throw new Error(`${cases[i][1]}: refused a real key`);
      const used = process.cpuUsage(before);
      results[i].push((used.user + used.system) / count);
    });
  }
  log('\nper key (µs of CPU, median of the rounds)');
  log(`${'what'.padEnd(16)}${'how'.padEnd(30)}${'µs/key'.padStart(9)}${'keys/s'.padStart(10)}`);
  const rows = cases.map(([what, how], i) => ({ what, how, us: median(results[i]) }));
  for (const r of rows)
    log(`${r.what.padEnd(16)}${r.how.padEnd(30)}${fmt(r.us, 1).padStart(9)}${fmt(1e6 / r.us).padStart(10)}`);
  return rows;
}

/**
 * Resident bytes an entry of the key cache costs: RSS growth from `count` to 2 × `count` key objects (from
 * JWKs, under 33-character ids), after collections.
 */
function entryBytes(count = 20_000) {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc');
  const cache = new KeyCache(2 * count * ENTRY_BYTES);
  const fill = () => {
    for (let i = 0; i < count; i++) {
      const x = randomBytes(32);
      const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: x.toString('base64url') }, format: 'jwk' });
      cache.set(`${x.toString('latin1')}1`, key);
    }
    gc();
    gc();
    return process.memoryUsage();
  };
  const before = fill();
  const after = fill();
  const bytes = { rss: (after.rss - before.rss) / count, heap: (after.heapUsed - before.heapUsed) / count };
  log(
    `\nkey cache: ${fmt(bytes.rss)} bytes of RSS an entry (${fmt(bytes.heap)} of them V8 heap), from ${fmt(count)} to ${fmt(cache.stats().size)} entries; counted at ${ENTRY_BYTES}: the ${KEY_CACHE_BYTES / 1024 / 1024} MiB budget holds ${fmt(Math.floor(KEY_CACHE_BYTES / ENTRY_BYTES))}`,
  );
  return bytes;
}

/* ------------------------------------------------------------------ 2. grants */

const cpuTicks = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]);
};
const rssMiB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;

async function grants(gateway, accounts) {
  const latencies = [];
  let next = 0;
  const cpuBefore = cpuTicks(gateway.pid);
  const started = performance.now();
  const worker = async () => {
    while (next < accounts.length) {
      const { username, password } = accounts[next++];
      const body = new URLSearchParams({
        grant_type: 'password',
        scope: 'general',
        client_id: CLIENT_ID,
        username,
        password,
      });
      const t0 = performance.now();
      const response = await fetch(`${gateway.url}/v1/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
      });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`grant for ${username}: ${response.status} ${text}`);
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: Number(options.concurrency) }, worker));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((x, y) => x - y);
  return {
    grants: accounts.length,
    perSecond: accounts.length / seconds,
    cpuUsPerGrant: ((cpuTicks(gateway.pid) - cpuBefore) * 10_000) / accounts.length,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    rssMiB: rssMiB(gateway.pid),
  };
}

const SECRETS = {
  TOKEN_SIGNING_KEY: generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  PROXY_SEED: 'benchmark proxy seed (not a secret)',
  CURSOR_SECRET: randomBytes(32).toString('hex'),
};
const ADMIN_PG_URL =
  process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const cleanups = [];
const running = new Set();

async function database(label) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `cold-keys-${label}-`));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  if (options.store !== 'pg') return { url: `sqlite:${path.join(dataDir, 'gateway.db')}`, dataDir };
  const pg = createRequire(import.meta.url)('pg');
  const name = `bench_coldkeys_${randomBytes(6).toString('hex')}`;
  const admin = async (sql) => {
    const client = new pg.Client({ connectionString: ADMIN_PG_URL });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end().catch(() => {});
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  cleanups.push(() => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  const url = new URL(ADMIN_PG_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), dataDir };
}

async function target(label, cli, root, warmUp) {
  const db = await database(label);
  const env = {
    HOST: '127.0.0.1',
    DATABASE_URL: db.url,
    DATA_DIR: db.dataDir,
    LOG_LEVEL: 'warn',
    TOKEN_RATE_LIMIT: '100000',
    SIGN_INS_PER_ADDRESS_HOUR: '0',
    CHAIN_ID,
    CLIENT_IDS: CLIENT_ID,
    CORS_ORIGINS: '',
    ...SECRETS,
    ...TRACING_OFF,
  };
  await runNode([cli, 'migrate'], { env, quiet: true, cwd: root });
  await runNode([cli, 'catalogue', 'load', path.join(root, 'server/demo/catalogue.yaml')], {
    env,
    quiet: true,
    cwd: root,
  });
  const t = {
    label,
    gateway: null,
    profileDir: options.profile && cli === CLI ? mkdtempSync(path.join(os.tmpdir(), 'cold-keys-profile-')) : null,
  };
  t.start = async () => {
    const port = await freePort();
    t.gateway = await startService(label, [cli, 'serve'], {
      port,
      core: 0,
      cwd: root,
      env: { ...env, PORT: String(port) },
      nodeArgs: ['--max-old-space-size=160', ...(t.profileDir ? ['--cpu-prof', '--cpu-prof-dir', t.profileDir] : [])],
    });
    running.add(t.gateway);
    await grants(t.gateway, warmUp);
    await grants(t.gateway, warmUp);
  };
  await t.start();
  return t;
}

async function main() {
  if (canPin()) spawnSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });
  log(
    `cold keys: Node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model}), load average ${os.loadavg()[0].toFixed(1)}, ${canPin() ? 'gateway pinned to core 0, this process to core 1' : 'not pinned'}`,
  );
  const perKeyRows = perKey();
  const cacheEntryBytes = entryBytes();

  const started = performance.now();
  const password = () => {
    const acct = account();
    return { username: acct.username, password: `${expiry}:${bs58.encode(sign(acct, message))}` };
  };
  const accounts = Array.from({ length: ACCOUNTS }, password);
  // Accounts of their own that warm each gateway up (JIT) after every start, signing in twice: not measured.
  const warmUp = Array.from({ length: WARM_UP }, password);
  log(`\ngrants: ${ACCOUNTS} accounts' passwords made in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const baseline = options['baseline-build'] ? path.resolve(options['baseline-build']) : null;
  const targets = [];
  if (baseline) targets.push(await target('before', path.join(baseline, 'server/dist/cli.js'), baseline, warmUp));
  targets.push(await target('now', CLI, ROOT, warmUp));
  const phases = [
    ['new account, cold key', null],
    ['known account, warm key', null],
    ['known account, cold key', 'restart'],
  ];
  const rows = [];
  for (const [index, [phase, before]] of phases.entries()) {
    // Alternate which gateway goes first, phase by phase.
    const order = index % 2 ? [...targets].reverse() : targets;
    for (const t of order) {
      if (before === 'restart') {
        await t.gateway.stop();
        running.delete(t.gateway);
        await t.start();
      }
      const startUs = Number(process.hrtime.bigint() / 1000n);
      const r = await grants(t.gateway, accounts);
      if (index === 0 && t.profileDir) t.window = { startUs, endUs: Number(process.hrtime.bigint() / 1000n) };
      rows.push({ phase, target: t.label, ...r });
      log(`  ${phase}, ${t.label}: ${fmt(r.perSecond)} grants/s, ${fmt(r.cpuUsPerGrant)} µs CPU a grant`);
    }
  }
  const now = targets.at(-1).gateway;
  const metrics = (await (await fetch(`${now.url}/metrics`)).text())
    .split('\n')
    .filter((line) => line.startsWith('gateway_key_cache'));
  for (const t of targets) {
    await t.gateway.stop();
    running.delete(t.gateway);
  }

  log(`\ngrants: ${fmt(ACCOUNTS)} accounts, ${options.concurrency} in flight, ${options.store}`);
  log(
    `${'phase'.padEnd(26)}${'gateway'.padEnd(8)}${'grants/s'.padStart(10)}${'CPU µs'.padStart(9)}${'p50 ms'.padStart(10)}${'p99 ms'.padStart(11)}${'RSS MB'.padStart(9)}`,
  );
  for (const r of rows) {
    log(
      `${r.phase.padEnd(26)}${r.target.padEnd(8)}${fmt(r.perSecond).padStart(10)}${fmt(r.cpuUsPerGrant).padStart(9)}${fmt(r.p50, 2).padStart(10)}${fmt(r.p99, 2).padStart(11)}${fmt(r.rssMiB, 1).padStart(9)}`,
    );
  }
  log(`\n/metrics of "now" after its restart and one pass:\n${metrics.join('\n')}`);
  const profiled = targets.find((t) => t.window);
  if (profiled) {
    // The first process's profile (the restart writes a second one): the new-account phase's samples only.
    const files = readdirSync(profiled.profileDir)
      .filter((f) => f.endsWith('.cpuprofile'))
      .sort();
    const file = path.join(profiled.profileDir, files[0]);
    log(
      `\nprofile of "now", new account, cold key (${file}):\n${formatSummary(summarizeProfile(file, 20, profiled.window))}`,
    );
  }
  log(
    `\n${JSON.stringify({ perKey: perKeyRows, cacheEntryBytes, grants: rows, accounts: ACCOUNTS, store: options.store })}`,
  );
}

try {
  await main();
} finally {
  for (const service of running) await service.stop();
  for (const cleanup of cleanups.reverse()) await cleanup();
}
