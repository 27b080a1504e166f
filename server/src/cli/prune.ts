/** `gateway prune [--dry-run]`: the housekeeping of `serve`, now (operator/housekeeper.ts). */
import { MAX_LIFETIME_SECONDS } from '@gateway/ledger';
import { loadConfig } from '../config.js';
import { runTasks } from '../operator/housekeeper.js';
import { housekeepingTasks } from '../store/housekeeping.js';
import { EXIT } from './usage.js';
import { withStore } from './with-store.js';

export async function pruneCommand(dryRun: boolean): Promise<number> {
  const config = loadConfig();
  const tasks = housekeepingTasks({
    eventRetentionHours: config.eventRetentionHours,
    accessTokenSeconds: MAX_LIFETIME_SECONDS,
  });
  const lines = await withStore(config, async (store) => {
    if (dryRun) {
      const now = new Date();
      const counted = await Promise.all(
        tasks.map(async (task) => [task.name, await task.count(store.db, now)] as const),
      );
      return counted.map(([name, n]) => `${name}: ${n === null ? 'not counted' : `${n} to delete`}`);
    }
    const report = await runTasks(store, tasks, { batch: 500, pauseMs: 0 });
    return [
      ...Object.entries(report.deleted).map(([name, n]) => `${name}: ${n} deleted`),
      `in ${(report.milliseconds / 1000).toFixed(2)} s`,
    ];
  });
  console.log(lines.join('\n'));
  return EXIT.done;
}
