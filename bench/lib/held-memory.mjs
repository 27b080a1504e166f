// What items held open cost the gateway's process in memory (bench/connections-memory.mjs,
// bench/streams-memory.mjs): a holder process (forked) opens them against the gateway in this process, on
// request, and the heap and resident set are read after full collections, before, while held and after.
import { getHeapStatistics } from 'node:v8';

/** Sends the holder a message and waits for its answer (`failed` rejects). */
export function askHolder(holder) {
  return (message) =>
    new Promise((resolve, reject) => {
      holder.once('message', (answer) => (answer.failed ? reject(new Error(answer.failed)) : resolve(answer)));
      holder.send(message);
    });
}

async function settledMemory() {
  await new Promise((resolve) => setTimeout(resolve, 500));
  for (let i = 0; i < 3; i++) globalThis.gc();
  const { heapUsed, heapTotal, external, rss } = process.memoryUsage();
  return { heapUsed, heapTotal, external, rss };
}

/**
 * Opens `warmUp` (so that the baseline holds the code and caches every item's path needs), closes them, then
 * opens `open` and closes them: the memory before, while they are held, and after.
 */
export async function measureHeld(ask, { warmUp, open }) {
  await ask({ open: warmUp });
  await ask({ close: true });
  const before = await settledMemory();
  const started = performance.now();
  await ask({ open });
  const openMs = performance.now() - started;
  const held = await settledMemory();
  await ask({ close: true });
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const after = await settledMemory();
  return { before, held, after, openMs };
}

/** The report: MiB before, held and after, and KiB per item (`perItem` names it: `perStreamKiB`, say). */
export function heldMemoryReport(count, { before, held, after, openMs }, perItem) {
  const mib = (bytes) => Math.round((bytes / 1024 / 1024) * 10) / 10;
  const kib = (bytes) => Math.round((bytes / 1024) * 10) / 10;
  return {
    node: process.version,
    openSeconds: Math.round(openMs) / 1000,
    heapLimitMiB: mib(getHeapStatistics().heap_size_limit),
    heapUsedMiB: { before: mib(before.heapUsed), open: mib(held.heapUsed), after: mib(after.heapUsed) },
    rssMiB: { before: mib(before.rss), open: mib(held.rss), after: mib(after.rss) },
    // The heap V8 has committed (used or not) and the memory outside it that V8 is told of (Buffers, ...):
    // where resident memory grows past the heap in use.
    heapTotalMiB: { before: mib(before.heapTotal), open: mib(held.heapTotal), after: mib(after.heapTotal) },
    externalMiB: { before: mib(before.external), open: mib(held.external), after: mib(after.external) },
    [perItem]: {
      heap: kib((held.heapUsed - before.heapUsed) / count),
      heapCommitted: kib((held.heapTotal - before.heapTotal) / count),
      external: kib((held.external - before.external) / count),
      rss: kib((held.rss - before.rss) / count),
    },
  };
}
