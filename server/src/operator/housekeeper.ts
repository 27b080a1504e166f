/**
 * The housekeeper: what must be deleted as days go by (store/housekeeping.ts: old events, old sign-out marks,
 * expired and long-revoked sign-ins), run by `serve` on a schedule and by `gateway prune` on demand, in small
 * batches with a pause between them, so that requests keep their turn at the database.
 *
 * One instance at a time per PostgreSQL database: the one holding a session advisory lock on a connection of
 * its own (the direct connection behind a transaction pooler). The lock goes with the connection, so when
 * that instance stops or dies another one takes it at its next try. Where no session can be held (a
 * transaction pooler and no DATABASE_DIRECT_URL) every instance runs it: the tasks are idempotent, only work
 * is repeated. SQLite has one process writing: it always runs.
 *
 * A run that fails is one log line and a count (`gateway_housekeeping_failures_total`), and a run not done for
 * three intervals shows as `gateway_housekeeping_last_run_timestamp_seconds` falling behind.
 */
import type pg from 'pg';
import { postgresDriver } from '../lib/drivers.js';
import type { HousekeepingTask } from '../store/housekeeping.js';
import type { Store } from '../store/store.js';

export interface HousekeeperOptions {
  tasks: HousekeepingTask[];
  /** Rows per batch (one short transaction each). */
  batch: number;
  /** Pause between two batches (ms): requests take their turn at the database. */
  pauseMs: number;
  /** Between two runs (ms). */
  everyMs: number;
  /** How often an instance not holding the lock tries to take it (ms). */
  electionMs: number;
  /** PostgreSQL: a connection that can hold a session (direct, or DATABASE_URL in session mode); none: no election. */
  lockUrl?: string;
  /** The PostgreSQL schema whose housekeeper this is (the lock is per schema). */
  schema?: string;
  log: { info(message: string): void; warn(message: string): void };
  now?: () => Date;
}

export interface HousekeepingReport {
  deleted: Record<string, number>;
  milliseconds: number;
}

export interface Housekeeper {
  /** Whether this instance is the housekeeper now. */
  readonly holding: boolean;
  /** Rows deleted since start, by task. */
  readonly deleted: Readonly<Record<string, number>>;
  /** When the last run finished (ms since the epoch), failed runs not counted; 0 before any. */
  readonly lastRunAt: number;
  readonly failures: number;
  /** Runs every task to its end once (what the schedule does at each interval). */
  runOnce(): Promise<HousekeepingReport>;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs each task batch by batch until a batch deletes nothing; what each deleted. */
export async function runTasks(
  store: Pick<Store, 'db'>,
  tasks: HousekeepingTask[],
  options: { batch: number; pauseMs: number; now?: () => Date; stopped?: () => boolean },
): Promise<HousekeepingReport> {
  const started = performance.now();
  const deleted: Record<string, number> = {};
  for (const task of tasks) {
    deleted[task.name] = 0;
    let total = 0;
    for (;;) {
      if (options.stopped?.()) break;
      const n = await task.run(store.db, options.now?.() ?? new Date(), options.batch);
      total += n;
      deleted[task.name] = total;
      if (n < options.batch) break;
      await sleep(options.pauseMs);
    }
  }
  return { deleted, milliseconds: performance.now() - started };
}

/** The advisory lock's key: one housekeeper per schema. */
const LOCK_KEY = "hashtext('gateway_housekeeper_' || current_schema())";

export function startHousekeeper(store: Pick<Store, 'db' | 'dialect'>, options: HousekeeperOptions): Housekeeper {
  let closed = false;
  let holding = store.dialect === 'sqlite' || options.lockUrl === undefined;
  let lockClient: pg.Client | null = null;
  let running: Promise<unknown> | null = null;
  let lastRunAt = 0;
  let failures = 0;
  const deleted: Record<string, number> = {};

  const release = () => {
    const client = lockClient;
    lockClient = null;
    if (holding && store.dialect === 'postgres' && options.lockUrl !== undefined) {
      holding = false;
      options.log.info('housekeeper: this instance is no longer the housekeeper (its lock connection ended)');
    }
    client?.end().catch(() => {});
  };

  /** PostgreSQL: tries to take the lock on a connection of its own; true when held. */
  const elect = async (): Promise<boolean> => {
    if (holding || closed || options.lockUrl === undefined || store.dialect !== 'postgres') return holding;
    const client = new (postgresDriver().Client)({
      connectionString: options.lockUrl,
      connectionTimeoutMillis: 5000,
      ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
    });
    client.on('error', () => {});
    try {
      await client.connect();
      const { rows } = await client.query<{ held: boolean }>(`select pg_try_advisory_lock(${LOCK_KEY}) as held`);
      if (!rows[0]?.held || closed) {
        await client.end();
        return false;
      }
      lockClient = client;
      client.on('end', () => {
        if (lockClient === client) release();
      });
      holding = true;
      options.log.info('housekeeper: this instance is the housekeeper (it holds the lock)');
      return true;
    } catch {
      await client.end().catch(() => {});
      return false;
    }
  };

  const run = async (): Promise<HousekeepingReport> => {
    const report = await runTasks(store, options.tasks, {
      batch: options.batch,
      pauseMs: options.pauseMs,
      now: options.now,
      stopped: () => closed || !holding,
    });
    for (const [task, n] of Object.entries(report.deleted)) deleted[task] = (deleted[task] ?? 0) + n;
    lastRunAt = Date.now();
    return report;
  };

  const tick = async () => {
    if (closed || running) return;
    running = (async () => {
      try {
        if (!(await elect())) return;
        if (Date.now() - lastRunAt < options.everyMs) return;
        const report = await run();
        const total = Object.values(report.deleted).reduce((a, b) => a + b, 0);
        if (total > 0) {
          const parts = Object.entries(report.deleted).map(([task, n]) => `${task} ${n}`);
          options.log.info(`housekeeping: deleted ${parts.join(', ')} in ${(report.milliseconds / 1000).toFixed(1)} s`);
        }
      } catch (error) {
        failures += 1;
        lastRunAt = Date.now();
        const message = (error instanceof Error && error.message.split('\n')[0]) || String(error);
        options.log.warn(`housekeeping failed: ${message}; it runs again in ${Math.round(options.everyMs / 1000)} s`);
      } finally {
        running = null;
      }
    })();
    await running;
  };

  const timer = setInterval(() => void tick(), Math.min(options.electionMs, options.everyMs));
  timer.unref();
  void tick();

  return {
    get holding() {
      return holding;
    },
    get deleted() {
      return deleted;
    },
    get lastRunAt() {
      return lastRunAt;
    },
    get failures() {
      return failures;
    },
    runOnce: run,
    async close() {
      closed = true;
      clearInterval(timer);
      await running?.catch(() => {});
      const client = lockClient;
      lockClient = null;
      holding = false;
      await client?.end().catch(() => {});
    },
  };
}
