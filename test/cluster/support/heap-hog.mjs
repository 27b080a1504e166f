/**
 * Preloaded into a gateway (`NODE_OPTIONS=--import=<this file>`) to stand for whatever fills a heap: on the
 * first SIGUSR2 it keeps arrays in the heap until the heap in use reaches HEAP_HOG_PERCENT of the old
 * generation that NODE_OPTIONS' `--max-old-space-size` gives, and says so on standard error; on the second it
 * lets them go and collects them. It reads the flag itself, apart from the server's own arithmetic.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const oldSpaceMib = Number(/--max-old-space-size=(\d+)/.exec(process.env.NODE_OPTIONS ?? '')?.[1]);
const percent = Number(process.env.HEAP_HOG_PERCENT);
if (!(oldSpaceMib > 0 && percent > 0)) throw new Error('heap-hog: --max-old-space-size and HEAP_HOG_PERCENT needed');
const target = (oldSpaceMib * 1024 * 1024 * percent) / 100;
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');

let kept = null;
process.on('SIGUSR2', () => {
  if (kept) {
    kept = null;
    gc();
    process.stderr.write(`heap-hog: released, ${mib(process.memoryUsage().heapUsed)} MiB in use\n`);
    return;
  }
  kept = [];
  // Arrays of 1 MiB of numbers, until what is left after a full collection (what is kept, not what is
  // garbage yet) reaches the target.
  for (gc(); process.memoryUsage().heapUsed < target; gc()) {
    const missing = Math.ceil((target - process.memoryUsage().heapUsed) / (1024 * 1024));
    for (let i = 0; i < missing; i++) kept.push(new Array(131072).fill(0.5));
  }
  process.stderr.write(`heap-hog: filled, ${mib(process.memoryUsage().heapUsed)} MiB in use\n`);
});

function mib(bytes) {
  return (bytes / 1024 / 1024).toFixed(1);
}
