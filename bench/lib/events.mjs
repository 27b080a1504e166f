/**
 * The event streams scenario (`events-sqlite`, `events-pg`): ACCOUNTS accounts signed in (one seed, nonces
 * 0..N-1, bench/lib/sign-in-many.mjs), one `GET /v1/events` stream each open on the gateway (the load
 * process bench/lib/sse-load.mjs, core 1), then one `gateway movements import FILE` of MOVEMENTS new
 * movements spread over the accounts (seeded), one process, one transaction (batch size ≥ MOVEMENTS).
 * Checks that every movement's event reached its account's stream exactly once and no other stream, and
 * measures the latency from the import's commit to each receipt, and the gateway's RSS with the streams open.
 *
 * The commit time is taken as the moment the import prints its report line on standard output (it does so
 * after its one transaction committed, before it closes the store and exits): an upper bound of the commit,
 * within a few milliseconds of it (pipe and event-loop delay). The exit time is recorded too.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BENCH, CLI, createRng, nodeCommand, peakRssMiB, quantile, ROOT, resetPeakRss, runNode } from './common.mjs';

const now = () => performance.timeOrigin + performance.now();

/** Current resident set (VmRSS) of a process, MiB. */
export function rssMiB(pid) {
  try {
    const kb = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    return Number.isFinite(kb) ? Math.round((kb / 1024) * 10) / 10 : null;
  } catch {
    return null;
  }
}

/** CPU seconds (user + system) a process has used so far, or null. */
function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // clock ticks (USER_HZ 100)
  } catch {
    return null;
  }
}

/** The demo file's first movement (a deposit) as the template of the imported ones. */
function templateMovement() {
  const line = readFileSync(path.join(ROOT, 'server/demo/movements.ndjson'), 'utf8').split('\n')[0];
  return JSON.parse(line);
}

/** Runs `gateway movements import FILE`; resolves with its start, report-line and exit times. */
function runImport(file, env, batchSize) {
  const { command, args } = nodeCommand(1, [CLI, 'movements', 'import', file, '--batch-size', String(batchSize)]);
  return new Promise((resolve, reject) => {
    const started = now();
    const child = spawn(command, args, {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let reported = null;
    child.stdout.on('data', (chunk) => {
      if (reported === null && /record\(s\)/.test(String(chunk))) reported = now();
      out += chunk;
    });
    child.stderr.on('data', (chunk) => {
      err += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      const exited = now();
      if (code !== 0) reject(new Error(`movements import failed (${code}): ${err || out}`));
      else resolve({ started, reported: reported ?? exited, exited, output: out.trim() });
    });
  });
}

/**
 * The scenario against a running gateway (`gateway.pid`, `gateway.url`) on the database of `env`.
 * Returns the measurement (see the file's comment).
 */
export async function measureEvents(gateway, env, { accounts: count, movements: total, seed, tmpRoot, log }) {
  const accountsFile = path.join(tmpRoot, `events-accounts-${gateway.pid}.json`);
  log(`  events: signing in ${count} accounts …`);
  const cpuBeforeSignIn = cpuSeconds(gateway.pid);
  const signIn = JSON.parse(
    await runNode(
      [
        path.join(BENCH, 'lib/sign-in-many.mjs'),
        gateway.url,
        String(count),
        `${seed} events`,
        accountsFile,
        env.CHAIN_ID,
        'waves.exchange',
      ],
      { env },
    ),
  );
  signIn.gatewayCpuSeconds = cpuSeconds(gateway.pid) - cpuBeforeSignIn;
  log(
    `  events: ${signIn.accounts} tokens in ${signIn.seconds.toFixed(1)} s (passwords ${signIn.passwordsSeconds.toFixed(1)} s; gateway CPU ${signIn.gatewayCpuSeconds?.toFixed(1)} s)`,
  );
  const accounts = JSON.parse(readFileSync(accountsFile, 'utf8'));
  const idleRssMiB = rssMiB(gateway.pid);
  resetPeakRss(gateway.pid);

  // The streams, from their own process on core 1.
  const { command, args } = nodeCommand(1, [path.join(BENCH, 'lib/sse-load.mjs'), gateway.url, accountsFile]);
  const cpuBeforeOpen = cpuSeconds(gateway.pid);
  const loader = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const messages = [];
  let wake = null;
  loader.on('message', (m) => {
    messages.push(m);
    wake?.();
  });
  const nextMessage = async (type, timeoutMs) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = messages.findIndex((m) => m.type === type);
      if (i !== -1) return messages.splice(i, 1)[0];
      if (loader.exitCode !== null) throw new Error(`sse-load exited (${loader.exitCode}) before '${type}'`);
      if (Date.now() > deadline) throw new Error(`sse-load: no '${type}' within ${timeoutMs} ms`);
      await new Promise((r) => {
        wake = r;
        setTimeout(r, 200);
      });
    }
  };
  try {
    const opened = await nextMessage('open', 300_000);
    const openCpuSeconds = cpuSeconds(gateway.pid) - cpuBeforeOpen;
    log(
      `  events: ${opened.streams} streams open in ${opened.seconds.toFixed(1)} s (gateway CPU ${openCpuSeconds?.toFixed(1)} s)${opened.failed ? ` (!! ${opened.failed} failed: ${opened.failures.join('; ')})` : ''}`,
    );
    await new Promise((r) => setTimeout(r, 2000)); // let the gateway settle (and collect) with the streams open
    const openRssMiB = rssMiB(gateway.pid);
    const openPeakRssMiB = peakRssMiB(gateway.pid);

    // The movements: fresh ids, spread over the accounts (seeded: some accounts get several, most none).
    const rng = createRng(`${seed} events movements`);
    const template = templateMovement();
    const at = new Date().toISOString();
    const expected = new Map(); // movement id -> account index
    const lines = [];
    for (let i = 0; i < total; i++) {
      const index = rng.int(accounts.length);
      const id = randomUUID();
      expected.set(id, index);
      const address = accounts[index].address;
      lines.push(
        JSON.stringify({
          ...template,
          id,
          account: address,
          recipient_address: address,
          created_at: at,
          updated_at: at,
        }),
      );
    }
    const file = path.join(tmpRoot, `events-movements-${gateway.pid}.ndjson`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    const cpuBeforeImport = cpuSeconds(gateway.pid);
    const imported = await runImport(file, env, Math.max(1000, total));
    log(
      `  events: ${imported.output} (report line ${(imported.reported - imported.started).toFixed(0)} ms after start, exit +${(imported.exited - imported.reported).toFixed(0)} ms)`,
    );

    loader.send({ type: 'collect', expected: total, timeoutMs: 60_000, graceMs: 2000 });
    const { receipts, other, streamsOpen } = await nextMessage('receipts', 120_000);
    if (other.errors > 0 && typeof gateway.log === 'function') {
      // Streams that ended in an error: what the gateway said last (a crash's message and stack).
      log(`  events: !! ${other.errors} stream(s) failed; the gateway's last output:\n${gateway.log().slice(-4000)}`);
    }
    const peakRss = peakRssMiB(gateway.pid);
    // The gateway's CPU from the import's start until the receipts were in (reading and sending the events).
    const deliveryCpuSeconds = cpuSeconds(gateway.pid) - cpuBeforeImport;

    // Exactly once, at the right stream only.
    const seen = new Map(); // movement id -> receipts at its own account's stream
    let wrongAccount = 0;
    let unknown = 0;
    let dataAccountMismatch = 0;
    const latencies = [];
    const fromExit = [];
    for (const [index, , movementId, dataAccount, receivedAt] of receipts) {
      const owner = expected.get(movementId);
      if (owner === undefined) {
        unknown++;
        continue;
      }
      if (dataAccount !== accounts[index].address) dataAccountMismatch++;
      if (owner !== index) {
        wrongAccount++;
        continue;
      }
      seen.set(movementId, (seen.get(movementId) ?? 0) + 1);
      latencies.push(receivedAt - imported.reported);
      fromExit.push(receivedAt - imported.exited);
    }
    const delivered = seen.size;
    const duplicates = [...seen.values()].reduce((s, n) => s + n - 1, 0);
    latencies.sort((a, b) => a - b);
    fromExit.sort((a, b) => a - b);
    const stat = (sorted) => ({
      min: sorted[0] ?? null,
      p50: quantile(sorted, 0.5),
      p99: quantile(sorted, 0.99),
      max: sorted.at(-1) ?? null,
    });
    return {
      accounts: accounts.length,
      streams: opened.streams,
      streamsFailed: opened.failed,
      streamsOpenAtEnd: streamsOpen,
      openSeconds: opened.seconds,
      openCpuSeconds,
      deliveryCpuSeconds,
      signIn,
      movements: total,
      accountsWithMovements: new Set(expected.values()).size,
      importMs: imported.reported - imported.started,
      importExitAfterReportMs: imported.exited - imported.reported,
      receipts: receipts.length,
      delivered,
      missing: total - delivered,
      duplicates,
      wrongAccount,
      unknown,
      dataAccountMismatch,
      otherEvents: other,
      latencyMs: stat(latencies),
      latencyFromExitMs: stat(fromExit),
      idleRssMiB,
      openRssMiB,
      openPeakRssMiB,
      peakRssMiB: peakRss,
    };
  } finally {
    if (loader.exitCode === null) loader.kill('SIGKILL');
  }
}
