/**
 * Where this process's heap ends: the old generation's limit, past which V8 stops the process ("Reached heap
 * limit"). It is what `--max-old-space-size` sets. V8's `heap_size_limit` is larger by the young generation
 * (three semi-spaces: 48 MiB by default on 64 bits), whose few MiB in use come and go with every minor
 * collection, so a bound taken as a share of `heap_size_limit` can lie past the point where the process dies:
 * under `--max-old-space-size=160` (a `heap_size_limit` of 208 MiB) a process dies with about 160 MiB in use,
 * 77% of it, and under 64 MiB at 58%.
 *
 * Node has no call that gives the old generation's limit, so it is read from the flags V8 was given (Node's
 * command line after NODE_OPTIONS, the last of each flag winning, as Node applies them): the limit
 * `--max-old-space-size` gives, or else `heap_size_limit` less three semi-spaces of `--max-semi-space-size`
 * or the running V8's default, which changed between Node's lines (measured on 64-bit Linux: 16 MiB on
 * Node 20 and 22, 64 MiB on Node 24, 32 MiB on Node 26). `npm start` and the deployment guide give
 * `--max-semi-space-size=16` so that a heap cap means the same on every line: under Node 24's default a
 * 160 MiB old generation came with a 192 MiB young one, and half of the runs collected the old generation
 * back to back at a tenth of the usual speed.
 */
import { getHeapStatistics } from 'node:v8';

const MIB = 1024 * 1024;
/**
 * V8's largest semi-space by default on 64-bit platforms, by V8's major version (Node 20: 11, 22: 12, 24: 13,
 * 26: 14), each read off `heap_size_limit` with and without `--max-semi-space-size`; a newer V8 is taken
 * to keep the latest known default (server/test/lib/heap.test.ts checks the running one).
 */
const DEFAULT_SEMI_SPACE_MIB_BY_V8: ReadonlyArray<readonly [major: number, mib: number]> = [
  [14, 32],
  [13, 64],
  [0, 16],
];

/** The running V8's default largest semi-space (MiB), for its version `v8Version`. */
export function defaultSemiSpaceMib(v8Version: string = process.versions.v8): number {
  const major = Number.parseInt(v8Version, 10);
  return (DEFAULT_SEMI_SPACE_MIB_BY_V8.find(([since]) => major >= since) ?? [0, 16])[1];
}
/** The young generation is two semi-spaces and a large-object space of one semi-space's size. */
const SEMI_SPACES_IN_YOUNG_GENERATION = 3;

/**
 * The value (MiB) of the last `--name=N` or `--name N` among `flags` (V8 accepts `_` for `-` in its flags'
 * names); undefined when none is given as a whole number.
 */
export function flagMib(flags: readonly string[], name: string): number | undefined {
  let value: number | undefined;
  const names = new Set([`--${name}`, `--${name.replaceAll('-', '_')}`]);
  flags.forEach((flag, i) => {
    const [key, inline] = flag.split('=', 2) as [string, string | undefined];
    if (!names.has(key)) return;
    const text = inline ?? flags[i + 1];
    if (text !== undefined && /^\d+$/.test(text)) value = Number(text);
  });
  return value;
}

/** The flags V8 was given: NODE_OPTIONS first, then the command line's, as Node applies them. */
export function nodeFlags(env: NodeJS.ProcessEnv = process.env, execArgv: readonly string[] = process.execArgv) {
  return [...(env.NODE_OPTIONS ?? '').split(/\s+/).filter(Boolean), ...execArgv];
}

/** The old generation's limit in bytes, for a process given `flags` with V8's `heapSizeLimit`. */
export function oldGenerationLimit(
  flags: readonly string[] = nodeFlags(),
  heapSizeLimit: number = getHeapStatistics().heap_size_limit,
): number {
  const oldSpace = flagMib(flags, 'max-old-space-size');
  if (oldSpace !== undefined && oldSpace > 0) return Math.min(oldSpace * MIB, heapSizeLimit);
  const semiSpace = flagMib(flags, 'max-semi-space-size') || defaultSemiSpaceMib();
  const young = SEMI_SPACES_IN_YOUNG_GENERATION * semiSpace * MIB;
  // A heap too small to hold the young generation's whole default (never seen): the whole limit.
  return heapSizeLimit > young ? heapSizeLimit - young : heapSizeLimit;
}

/**
 * How far the old generation may grow past what survived a full collection before the next one starts, in
 * percent: 100, twice the live heap. V8 takes the factor from the heap's limit when it is capped: 1.3 under
 * 256 MiB (`npm start`'s 160), rising to 2 at 2 GiB and 4 above it. The gateway holds some 40 MB for good (the
 * spec's validators and serializers, the catalogue, caches) and under load promotes every page in flight, so
 * at 1.3 it marked and compacted the whole old generation every few seconds, each with a pause of 14–24 ms:
 * a page's p99 at half the floor's rate was 16–24 ms, and 6.5–7.9 with twice the live heap, at a peak
 * RSS 4–22 MiB higher (bench/postgres-floor.md, "The old generation's pace").
 */
export const OLD_GENERATION_GROWTH_PERCENT = 100;
/** The old generation's limit at and above which V8's own factor (4) is larger than ours. */
const V8_FULL_GROWTH_FROM_BYTES = 2048 * MIB;

/**
 * The V8 flag that sets the old generation's growth, for a process given `flags` and whose old generation
 * ends at `limitBytes`: `--heap-growing-percent=100` where V8 would grow it by less (a limit under 2 GiB);
 * null where the operator set the flag (theirs stands) or V8 grows it by more. Node refuses the flag in
 * NODE_OPTIONS, so `serve` sets it itself (`v8.setFlagsFromString`: V8 reads it at every full collection).
 */
export function oldGenerationGrowthFlag(
  flags: readonly string[] = nodeFlags(),
  limitBytes: number = oldGenerationLimit(flags),
): string | null {
  if (flags.some((flag) => /^--heap[-_]growing[-_]percent(=|$)/.test(flag))) return null;
  if (limitBytes >= V8_FULL_GROWTH_FROM_BYTES) return null;
  return `--heap-growing-percent=${OLD_GENERATION_GROWTH_PERCENT}`;
}
