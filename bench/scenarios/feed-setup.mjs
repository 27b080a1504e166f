/**
 * What the feed scenarios (imports.mjs, follow.mjs) share: a fresh database of their own for each, the
 * machine's state around a measurement, the count of movements stored.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { ADMIN_PG_URL, cleanups, log, options, tmpRoot } from '../context.mjs';
import { backgroundBusy, CLI, cpuTimes, runNode } from '../lib/common.mjs';

const require = createRequire(import.meta.url);

/**
 * Before a feed measurement: the share of the CPU busy with other work (waiting up to --wait-idle for it
 * to fall under 10%, as the HTTP rounds do) and the load average.
 */
export async function machineBefore() {
  let background = await backgroundBusy(500);
  const waitUntil = Date.now() + Number(options['wait-idle']) * 1000;
  if (background !== null && background > 0.1 && Date.now() < waitUntil) {
    log(
      `  waiting up to ${options['wait-idle']} s for the machine to be idle (${(background * 100).toFixed(0)}% busy) …`,
    );
    while (background > 0.1 && Date.now() < waitUntil) background = await backgroundBusy(1000);
  }
  if (background !== null && background > 0.1) {
    log(
      `  !! ${(background * 100).toFixed(0)}% of the CPU is busy with other work before this measurement: numbers will be low`,
    );
  }
  return { backgroundCpu: background, loadAvg1Before: os.loadavg()[0], cpu: cpuTimes() };
}

/** What the machine did over a measurement: its whole CPU busy share (ours included) and the load average. */
export function machineAfter(before) {
  const now = cpuTimes();
  const total = now.total - before.cpu.total;
  return {
    backgroundCpu: before.backgroundCpu,
    loadAvg1Before: before.loadAvg1Before,
    loadAvg1After: os.loadavg()[0],
    machineBusyDuring: total > 0 ? 1 - (now.idle - before.cpu.idle) / total : null,
  };
}

/** A fresh database for one feed scenario (SQLite file, or a PostgreSQL database `bench_import_…`, dropped at the end). */
export async function freshDatabase(store, id) {
  const dataDir = mkdtempSync(path.join(tmpRoot, `${id}-`));
  if (store === 'sqlite') return { url: `sqlite:${path.join(dataDir, 'gateway.db')}`, dataDir };
  const pg = require('pg');
  const db = `bench_import_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_PG_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${db}`);
  } finally {
    await admin.end().catch(() => {});
  }
  cleanups.push(async () => {
    const c = new pg.Client({ connectionString: ADMIN_PG_URL });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
    await c.end();
    log(`[pg] dropped database ${db}`);
  });
  const url = new URL(ADMIN_PG_URL);
  url.pathname = `/${db}`;
  log(`[pg] database ${db} (${id})`);
  return { url: url.toString(), dataDir };
}

/** The movements stored, from `gateway status --json`. */
export async function storedMovements(env) {
  const status = JSON.parse(await runNode([CLI, 'status', '--json'], { env, quiet: true }));
  return status.counts?.movements ?? null;
}
