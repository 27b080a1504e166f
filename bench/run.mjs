#!/usr/bin/env node
/**
 * `npm run bench`: the gateway's throughput and latency against its baselines, measured in the same run.
 * See bench/README.md. Loopback only; the server and its baseline servers pinned to core 0, the load
 * generator (autocannon, its own process) to core 1; warm-up, then rounds alternating between the gateway
 * and its baselines, medians.
 *
 *   node bench/run.mjs [--quick] [--only IDS] [--skip-pg] [--profile ID] [--connections N] [--wait-idle S]
 *                      [--seed TEXT] [--rounds N] [--round-seconds S] [--warmup-seconds S]
 *                      [--baseline-build DIR [--baseline-label TEXT]]
 *
 * IDS: comma-separated scenario ids or groups (public, pages, signed-in, tokens, client, import, follow, tracing, storm,
 * sqlite, pg), e.g. `--only tokens-sqlite,client` or `--only import,follow` (the feed imports: the CLI on fresh
 * databases, see runFeeds). --profile ID runs that scenario alone with the server under
 * `node --cpu-prof` and prints its top self-time functions. --baseline-build DIR: a second gateway, built
 * in another checkout DIR (its server/dist/cli.js, on its own database prepared by its own CLI and data
 * script), joins the gateway's side-by-side rounds in every HTTP scenario (public, pages, signed-in): the
 * same requests, its own sign-in; the run reports both and the difference in CPU per request.
 *
 * This file runs the families in order; each is a module of its own: scenarios/http.mjs (public reads,
 * signed-in reads and pages, with tracing, the client, event streams and token grants on the same gateway:
 * client.mjs, events.mjs, tokens.mjs), scenarios/imports.mjs and follow.mjs (the feeds, on fresh databases:
 * feed-setup.mjs). What they share: context.mjs (options, settings, targets, selection, builds, results),
 * gateway.mjs (a build's gateway and the baselines' servers), side-by-side.mjs (the load rounds), rows.mjs and
 * report.mjs (the verdicts and the table).
 */
// On the workspace's pinned Node, whatever Node started it (before any other import is evaluated).
import './lib/pinned.mjs';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import {
  ADMIN_PG_URL,
  ALL_IDS,
  anySelected,
  BASELINE,
  cleanup,
  cleanups,
  feedScenario,
  fmt,
  GROUPS,
  log,
  onlyList,
  QUICK,
  results,
  running,
  SETTINGS,
  selected,
  stamp,
  startedAt,
  TARGETS,
  THIS_BUILD,
  tmpRoot,
} from './context.mjs';
import { BENCH, canPin, isFile, ROOT } from './lib/common.mjs';
import { movementsFile } from './lib/feeds.mjs';
import { evaluate, printTable } from './report.mjs';
import { measureFollow } from './scenarios/follow.mjs';
import { runStore } from './scenarios/http.mjs';
import { measureImport } from './scenarios/imports.mjs';
import { runStorm } from './scenarios/storm.mjs';
import { makeGrants } from './scenarios/tokens.mjs';
import { formatVersus } from './side-by-side.mjs';

const require = createRequire(import.meta.url);

/** The feed scenarios selected, SQLite then PostgreSQL, each on fresh databases. */
async function runFeeds() {
  const ids = ALL_IDS.filter((id) => selected(id) && (GROUPS.import(id) || GROUPS.follow(id)));
  if (ids.length === 0) return;
  const source = ids.some(GROUPS.import) ? movementsFile(SETTINGS.seed, SETTINGS.importMovements, log) : null;
  if (source) results.importFile = { ...source, file: path.relative(ROOT, source.file) };
  for (const store of ['sqlite', 'pg']) {
    const own = ids.filter((id) => (store === 'pg' ? GROUPS.pg(id) : GROUPS.sqlite(id)));
    try {
      for (const id of own) {
        if (GROUPS.import(id)) await measureImport(store, id, source, id.startsWith('import-stdin-'));
        else await measureFollow(store, id);
      }
    } catch (error) {
      if (store === 'pg' && /ECONNREFUSED|connect/.test(error.message) && !results.scenarios[own[0]]) {
        log(`[pg] PostgreSQL unavailable at ${ADMIN_PG_URL} (${error.message}): feed scenarios skipped`);
        results.pgSkipped = error.message;
      } else throw error;
    }
  }
}

/* ------------------------------------------------------------------ main */

async function main() {
  for (const dist of [
    'server/dist/cli.js',
    'client/dist/index.js',
    'ledger/dist/index.js',
    'generated/dist/index.js',
  ]) {
    if (!isFile(path.join(ROOT, dist))) throw new Error(`${dist} is missing: run \`npx turbo run build\` first`);
  }
  const machine = {
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    pinned: canPin() ? 'server core 0, load generator core 1' : 'no (needs 2 cores and taskset)',
  };
  log(
    `gateway benchmark (${SETTINGS.mode}): ${machine.cpu} x${machine.cores}, ${machine.memoryGiB} GiB, node ${machine.node}, pinning: ${machine.pinned}`,
  );

  const grants = anySelected(GROUPS.tokens) ? await makeGrants() : null;

  if (anySelected((id) => GROUPS.sqlite(id) && !feedScenario(id))) {
    const dir = mkdtempSync(path.join(tmpRoot, 'sqlite-'));
    const baseDir = BASELINE ? mkdtempSync(path.join(tmpRoot, 'sqlite-baseline-')) : null;
    await runStore(
      'sqlite',
      `sqlite:${path.join(dir, 'gateway.db')}`,
      dir,
      grants,
      baseDir ? { url: `sqlite:${path.join(baseDir, 'gateway.db')}`, dataDir: baseDir } : null,
    );
  }

  if (anySelected((id) => GROUPS.pg(id) && !feedScenario(id))) {
    const pg = require('pg');
    const name = `bench_${randomBytes(6).toString('hex')}`;
    // The baseline build (--baseline-build) has a database of its own.
    const names = BASELINE ? [name, `${name}_baseline`] : [name];
    const admin = new pg.Client({ connectionString: ADMIN_PG_URL });
    let created = false;
    try {
      await admin.connect();
      for (const db of names) {
        await admin.query(`CREATE DATABASE ${db}`);
        cleanups.push(async () => {
          const c = new pg.Client({ connectionString: ADMIN_PG_URL });
          await c.connect();
          await c.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
          await c.end();
          log(`[pg] dropped database ${db}`);
        });
      }
      created = true;
    } catch (error) {
      log(`[pg] PostgreSQL unavailable at ${ADMIN_PG_URL} (${error.message}): PostgreSQL scenarios skipped`);
      results.pgSkipped = error.message;
    } finally {
      await admin.end().catch(() => {});
    }
    if (created) {
      const urlOf = (db) => {
        const url = new URL(ADMIN_PG_URL);
        url.pathname = `/${db}`;
        return url.toString();
      };
      log(`[pg] database ${names.join(', ')}`);
      await runStore(
        'pg',
        urlOf(name),
        mkdtempSync(path.join(tmpRoot, 'pg-')),
        grants,
        BASELINE ? { url: urlOf(names[1]), dataDir: mkdtempSync(path.join(tmpRoot, 'pg-baseline-')) } : null,
      );
    }
  }

  await runFeeds();
  await runStorm();

  const rows = evaluate();
  const compared = Object.values(results.scenarios).filter((s) => s.versusBaseline);
  const minutes = (Date.now() - startedAt) / 60_000;
  console.log(
    `\nExchange gateway benchmark, ${SETTINGS.mode} run, ${new Date().toISOString()} (${minutes.toFixed(1)} min)`,
  );
  console.log(
    `${machine.cpu} x${machine.cores}, ${machine.memoryGiB} GiB, node ${machine.node}; pinned: ${machine.pinned}`,
  );
  console.log(
    `${SETTINGS.connections} connections, warm-up ${SETTINGS.warmupSeconds} s, ${SETTINGS.rounds} rounds of ${SETTINGS.roundSeconds} s, medians` +
      (Object.keys(results.datasets).length
        ? `; data: ${Object.entries(results.datasets)
            .map(
              ([k, d]) => `${k} ${fmt(d.movements)} movements + ${fmt(d.trades)} trades, ${fmt(d.accounts)} accounts`,
            )
            .join('; ')}`
        : ''),
  );
  console.log('');
  printTable(rows);
  if (compared.length) {
    console.log(
      `\nThis build (${THIS_BUILD.label}) against the baseline build (${BASELINE.label}, ${BASELINE.root}), the same rounds: CPU µs per request median [lowest–highest round], the difference of the medians, and round by round (median, range)`,
    );
    for (const s of compared) {
      console.log(
        `${s.label.padEnd(42)} ${formatVersus(s.versusBaseline)}${s.baseline.answersDiffer ? '  !! answers differ' : ''}`,
      );
    }
  }
  const verdicts = rows.flatMap((r) =>
    r.checks.map((c) => ({ row: `${r.id} ${r.target}`, check: c.text, value: c.value, pass: c.pass })),
  );
  const passed = verdicts.filter((v) => v.pass === true).length;
  const missed = verdicts.filter((v) => v.pass === false);
  console.log(
    `\n${passed} PASS, ${missed.length} MISS${missed.length ? `: ${missed.map((m) => `${m.row} ${m.check}`).join('; ')}` : ''}`,
  );

  mkdirSync(path.join(BENCH, 'results'), { recursive: true });
  const file = path.join(
    BENCH,
    'results',
    `${stamp}${QUICK ? '-quick' : ''}${onlyList ? '-partial' : ''}${BASELINE ? '-ab' : ''}.json`,
  );
  writeFileSync(
    file,
    `${JSON.stringify({ date: new Date().toISOString(), minutes, machine, settings: SETTINGS, targets: TARGETS, only: onlyList ?? null, builds: { gateway: THIS_BUILD, baseline: BASELINE }, table: rows, verdicts, ...results }, null, 2)}\n`,
  );
  // The repository's `biome check .` covers bench/: leave the file formatted its way (best effort).
  spawnSync(path.join(ROOT, 'node_modules/.bin/biome'), ['format', '--write', file], { cwd: ROOT, stdio: 'ignore' });
  console.log(`results: ${path.relative(ROOT, file)}`);
}

main()
  .then(
    () => cleanup(),
    async (error) => {
      console.error(error);
      for (const s of running) log(`--- ${s.name} log:\n${s.log().slice(-3000)}`);
      await cleanup();
      process.exitCode = 1;
    },
  )
  .then(() => process.exit());
