/**
 * Large records and concurrent large reads, against the real server under `npm start`'s heap (160 MiB):
 * the largest records the spec allows are imported, every record one over a bound is refused with nothing
 * written, and then hundreds of clients at once read the largest answers the spec allows (a page of the
 * largest movements, of the largest platforms, of the largest trades), some of them never reading what
 * they asked for. The process stays alive, every answer is a page within its byte budget or a shed
 * request (429/503 in the error body), never a socket error or another 5xx. Peak RSS is printed.
 *
 *   cd test && CI= npx vitest run hostile-bounds
 *   (BOUNDS_READERS and BOUNDS_NON_READERS change the load: 600 and 150 by default)
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { operationMeta } from '@gateway/generated';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordFigures } from '../src/figures.js';
import { type RunningGateway, startGateway } from '../src/gateway.js';
import {
  catalogueOverEveryBound,
  largestCatalogue,
  largestMovement,
  largestTrade,
  longCurrencyId,
  longPlatformId,
  movementsOverBounds,
  tradeOverBounds,
} from '../src/largest-records.js';
import { gatewayPid, isAlive } from './support/process.js';
import { DEMO_ADDRESS, signIn } from './support/session.js';

const CLI = fileURLToPath(new URL('../../server/dist/cli.js', import.meta.url));
const PAGE_BYTES = operationMeta.listMovements.pageBytes;
/** `npm start`'s heap (package.json "start"). */
const HEAP = '--max-old-space-size=160';
const MOVEMENTS = 120;
const TRADES = 1001;
/** Clients at once, a third on each list; and clients that ask and never read. */
const READERS = Number(process.env.BOUNDS_READERS ?? 600);
const NON_READERS = Number(process.env.BOUNDS_NON_READERS ?? 150);
const [AMOUNT, PRICE] = [longCurrencyId(1), longCurrencyId(2)];
const run = promisify(execFile);

const ndjson = (records: readonly object[]) => records.map((r) => `${JSON.stringify(r)}\n`).join('');

describe('large records and concurrent large reads', () => {
  let gateway: RunningGateway;
  let pid: number;
  let dir: string;
  let token: string;
  let refusedImports = 0;
  let acceptedImports = 0;
  const rss = { baseline: 0, peak: 0 };
  beforeAll(async () => {
    // Hundreds of clients, all from this test's one address: the per-address connection cap (256, its own
    // attack in hostile-connections) is lifted so that they all reach the answers whose memory this measures.
    gateway = await startGateway({ NODE_OPTIONS: HEAP, CONNECTIONS_PER_ADDRESS: '0' });
    pid = gatewayPid(gateway.dataDir) ?? 0;
    dir = mkdtempSync(path.join(tmpdir(), 'hostile-bounds-'));
  });
  afterAll(async () => {
    await gateway?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The `gateway` command on the server's database; its exit code and standard error. */
  const command = (...args: string[]) =>
    run(process.execPath, [CLI, ...args], {
      env: {
        ...process.env,
        DATA_DIR: gateway.dataDir,
        DATABASE_URL: `sqlite:${path.join(gateway.dataDir, 'gateway.db')}`,
        LOG_LEVEL: 'error',
      },
      maxBuffer: 16 * 1024 * 1024,
    }).then(
      (r) => ({ code: 0, stderr: r.stderr, stdout: r.stdout }),
      (e: { code: number; stderr: string; stdout: string }) => ({ code: e.code, stderr: e.stderr, stdout: e.stdout }),
    );
  const file = (name: string, text: string) => {
    writeFileSync(path.join(dir, name), text);
    return path.join(dir, name);
  };
  const counts = async () => JSON.parse((await command('status', '--json')).stdout).counts as Record<string, number>;

  it('imports the largest records the spec allows, and refuses one over each bound with nothing written', async () => {
    const movements = Array.from({ length: MOVEMENTS }, (_, i) => largestMovement(i, DEMO_ADDRESS, longCurrencyId(0)));
    const trades = Array.from({ length: TRADES }, (_, i) => largestTrade(i, DEMO_ADDRESS, AMOUNT, PRICE));
    const imports = await Promise.all([
      // The movements are of a currency of the catalogue: it is loaded first.
      command('catalogue', 'load', file('catalogue.json', JSON.stringify(largestCatalogue()))).then(async (loaded) => [
        loaded,
        await command('movements', 'import', file('movements.ndjson', ndjson(movements))),
      ]),
      command('trades', 'import', file('trades.ndjson', ndjson(trades))).then((imported) => [imported]),
    ]);
    for (const result of imports.flat()) expect(result.code, result.stderr).toBe(0);
    const before = await counts();

    const overMovements = movementsOverBounds(largestMovement(MOVEMENTS, DEMO_ADDRESS, longCurrencyId(0)));
    const overTrades = tradeOverBounds(largestTrade(TRADES, DEMO_ADDRESS, AMOUNT, PRICE));
    const overCatalogue = catalogueOverEveryBound();
    const attempts = [
      {
        args: [
          'movements',
          'import',
          file('over.ndjson', ndjson([movements[0] as object, ...Object.values(overMovements)])),
        ],
        refusals: Object.keys(overMovements).map((field, i) => `line ${i + 2}: ${field}: `),
      },
      {
        args: ['trades', 'import', file('over-trades.ndjson', ndjson([trades[0] as object, overTrades.id]))],
        refusals: ['line 2: id: '],
      },
      {
        args: ['catalogue', 'load', file('over.json', JSON.stringify(overCatalogue.catalogue))],
        refusals: overCatalogue.fields.map((field) => `${field}: must have at most `),
      },
    ];
    const results = await Promise.all(attempts.map(({ args }) => command(...args)));
    for (const [i, { refusals }] of attempts.entries()) {
      const result = results[i] as Awaited<ReturnType<typeof command>>;
      expect(result.code, result.stderr).toBe(1);
      for (const refusal of refusals) {
        if (result.stderr.includes(refusal)) refusedImports++;
        else acceptedImports++;
        expect(result.stderr).toContain(refusal);
      }
    }
    expect(await counts()).toEqual(before);
  }, 60_000);

  it('answers hundreds of concurrent reads of the largest answers with pages or shed requests, and lives', async () => {
    token = (await signIn(gateway.url)).access_token;
    // The instance reads the new catalogue within a second.
    for (let tries = 0; ; tries++) {
      const page = await fetch(`${gateway.url}/v1/platforms/${longPlatformId(0)}`);
      if (page.status === 200) break;
      expect(tries).toBeLessThan(50);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const targets = [
      { path: '/v1/movements?limit=100', headers: { authorization: `Bearer ${token}` } },
      { path: '/v1/platforms?limit=100', headers: {} },
      { path: `/v1/addresses/${DEMO_ADDRESS}/trades/${AMOUNT}/${PRICE}?limit=1000`, headers: {} },
    ];
    const sampler = sampleRss(pid, rss);
    const outcomes = new Map<string, number>();
    const count = (what: string) => outcomes.set(what, (outcomes.get(what) ?? 0) + 1);
    const nonReaders = Array.from({ length: NON_READERS }, (_, i) => askAndWait(gateway.url, targets[i % 3] as Target));
    await Promise.all(nonReaders.map((n) => n.sent));
    await Promise.all(
      Array.from({ length: READERS }, async (_, i) => {
        const target = targets[i % 3] as Target;
        try {
          const answer = await fetch(`${gateway.url}${target.path}`, { headers: target.headers });
          const body = Buffer.from(await answer.arrayBuffer());
          count(classify(answer.status, body));
        } catch (error) {
          count(`socket error (${(error as Error).cause ?? (error as Error).message})`);
        }
      }),
    );
    // The clients that never read now read: each answer is still whole.
    for (const answer of await Promise.all(nonReaders.map((n) => n.read()))) count(answer);
    sampler.stop();
    const alive = isAlive(pid) && (await fetch(`${gateway.url}/health/live`)).status === 200;
    const bad = [...outcomes].filter(([what]) => what !== 'page' && !what.startsWith('shed '));
    const accepted = acceptedImports + bad.reduce((sum, [, n]) => sum + n, 0);
    console.log(
      `hostile-bounds: ${READERS} concurrent reads and ${NON_READERS} that never read, of the largest pages; ` +
        `RSS ${mib(rss.baseline)} -> peak ${mib(rss.peak)} MiB; ${JSON.stringify(Object.fromEntries(outcomes))}`,
    );
    recordFigures('hostile-bounds', {
      check: 'large records and concurrent large reads',
      tried:
        `${refusedImports + acceptedImports} records over a bound; ${READERS} concurrent reads and ` +
        `${NON_READERS} unread ones of the largest pages (160 MiB heap), peak RSS ${mib(rss.peak)} MiB`,
      accepted,
      alive,
      peakRssMiB: mib(rss.peak),
      baselineRssMiB: mib(rss.baseline),
      outcomes: Object.fromEntries(outcomes),
    });
    expect(bad).toEqual([]);
    expect(alive).toBe(true);
  }, 60_000);
});

interface Target {
  path: string;
  headers: Record<string, string>;
}

/** What an answer is: a page within the budget, a shed request in the error body, or anything else. */
function classify(status: number, body: Buffer): string {
  if (status === 200) return body.length <= PAGE_BYTES ? 'page' : `page over budget (${body.length} bytes)`;
  if (status === 429 || status === 503) {
    try {
      const code = (JSON.parse(body.toString()) as { errors: { code: unknown }[] }).errors[0]?.code;
      return typeof code === 'number' ? `shed ${status} (${code})` : `${status} without a code`;
    } catch {
      return `${status} without the error body`;
    }
  }
  return `status ${status}`;
}

/** A client that sends its request and reads nothing until asked to: its answer waits in the server. */
function askAndWait(baseUrl: string, target: Target) {
  const { hostname, port } = new URL(baseUrl);
  const socket = net.connect({ host: hostname, port: Number(port) });
  const chunks: Buffer[] = [];
  const sent = new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.once('connect', () => {
      const headers = Object.entries(target.headers).map(([k, v]) => `${k}: ${v}\r\n`);
      socket.write(`GET ${target.path} HTTP/1.1\r\nhost: ${hostname}\r\n${headers.join('')}connection: close\r\n\r\n`);
      socket.pause();
      resolve();
    });
  });
  const read = () =>
    new Promise<string>((resolve) => {
      const timer = setTimeout(() => finish('socket error (no whole answer within 20 s)'), 20_000);
      const finish = (what: string) => {
        clearTimeout(timer);
        socket.destroy();
        resolve(what);
      };
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.once('error', (error) => finish(`socket error (${error.message})`));
      socket.once('end', () => {
        const text = Buffer.concat(chunks);
        const split = text.indexOf('\r\n\r\n');
        const status = Number(text.subarray(9, 12).toString());
        finish(split < 0 ? 'socket error (no answer)' : classify(status, text.subarray(split + 4)));
      });
      socket.resume();
    });
  return { sent, read };
}

const mib = (bytes: number) => Math.round(bytes / 1024 / 1024);

/** Samples the process's resident memory every 20 ms into `rss` (baseline: the first sample). */
function sampleRss(pid: number, rss: { baseline: number; peak: number }) {
  const sample = () => {
    try {
      const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
      rss.baseline ||= kb * 1024;
      rss.peak = Math.max(rss.peak, kb * 1024);
    } catch {
      // the process is gone: the test says so
    }
  };
  sample();
  const timer = setInterval(sample, 20);
  return { stop: () => clearInterval(timer) };
}
