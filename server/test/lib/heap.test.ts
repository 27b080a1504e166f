/**
 * Where a process's heap ends (lib/heap.ts): the old generation's limit, read from the flags V8 was given,
 * checked against real Node processes: the flags' arithmetic gives V8's own `heap_size_limit` back, and a
 * process filling its heap dies past 90% of that limit but before 90% of `heap_size_limit` (where the heap
 * guard sat before, so that it never refused anything before the process died).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  flagMib,
  nodeFlags,
  OLD_GENERATION_GROWTH_PERCENT,
  oldGenerationGrowthFlag,
  oldGenerationLimit,
} from '../../src/lib/heap.js';

const MIB = 1024 * 1024;
const run = promisify(execFile);

/** The `heap_size_limit` of a Node process started with `flags`. */
async function heapSizeLimit(flags: string[], env: NodeJS.ProcessEnv = {}): Promise<number> {
  const { stdout } = await run(
    process.execPath,
    [...flags, '-e', 'process.stdout.write(String(require("node:v8").getHeapStatistics().heap_size_limit))'],
    { env: { PATH: process.env.PATH, ...env } },
  );
  return Number(stdout);
}

describe('the flags V8 was given', () => {
  it('reads the last value of a flag, in either spelling, inline or as the next argument', () => {
    expect(flagMib(['--max-old-space-size=160'], 'max-old-space-size')).toBe(160);
    expect(flagMib(['--max_old_space_size=96'], 'max-old-space-size')).toBe(96);
    expect(flagMib(['--max-old-space-size', '64'], 'max-old-space-size')).toBe(64);
    expect(flagMib(['--max-old-space-size=160', '--max-old-space-size=512'], 'max-old-space-size')).toBe(512);
    expect(flagMib(['--max-old-space-size-percentage=50'], 'max-old-space-size')).toBeUndefined();
    expect(flagMib(['--max-old-space-size=lots'], 'max-old-space-size')).toBeUndefined();
    expect(flagMib(['--max-semi-space-size=8'], 'max-old-space-size')).toBeUndefined();
  });

  it('takes NODE_OPTIONS first and the command line after, so the command line wins', () => {
    const flags = nodeFlags({ NODE_OPTIONS: ' --max-old-space-size=96  --enable-source-maps' }, [
      '--max-old-space-size=160',
    ]);
    expect(flags).toEqual(['--max-old-space-size=96', '--enable-source-maps', '--max-old-space-size=160']);
    expect(flagMib(flags, 'max-old-space-size')).toBe(160);
    expect(nodeFlags({}, [])).toEqual([]);
  });
});

describe('the old generation limit', () => {
  it('is --max-old-space-size where it is given, whatever the young generation', async () => {
    for (const flags of [
      ['--max-old-space-size=160'],
      ['--max-old-space-size=64', '--max-semi-space-size=4'],
      ['--max-old-space-size=512', '--max-semi-space-size=64'],
    ]) {
      const limit = await heapSizeLimit(flags);
      const given = (flagMib(flags, 'max-old-space-size') ?? 0) * MIB;
      expect(limit, flags.join(' ')).toBeGreaterThan(given);
      expect(oldGenerationLimit(flags, limit), flags.join(' ')).toBe(given);
    }
    const fromEnv = await heapSizeLimit([], { NODE_OPTIONS: '--max-old-space-size=96' });
    expect(oldGenerationLimit(nodeFlags({ NODE_OPTIONS: '--max-old-space-size=96' }, []), fromEnv)).toBe(96 * MIB);
  });

  it('is, where V8 chose it, the --max-old-space-size that gives the same heap_size_limit', async () => {
    for (const flags of [[], ['--max-semi-space-size=2'], ['--max-semi-space-size=32']]) {
      const limit = await heapSizeLimit(flags);
      const old = oldGenerationLimit(flags, limit);
      expect(old % MIB, flags.join(' ')).toBe(0);
      expect(old, flags.join(' ')).toBeLessThan(limit);
      expect(await heapSizeLimit([...flags, `--max-old-space-size=${old / MIB}`]), flags.join(' ')).toBe(limit);
    }
  });

  it('is where a process filling its heap dies: past 90% of it, short of 90% of heap_size_limit', async () => {
    const flags = ['--max-old-space-size=64'];
    // Keeps 1 MiB arrays of numbers until V8 stops the process, printing the heap in use after each.
    const fill = `
      const keep = [];
      for (;;) {
        keep.push(Array.from({ length: 131072 }, (_, i) => i + 0.5));
        process.stdout.write(process.memoryUsage().heapUsed + ' ' + require('node:v8').getHeapStatistics().heap_size_limit + '\\n');
      }`;
    const died = await run(process.execPath, [...flags, '-e', fill], { maxBuffer: 64 * MIB }).then(
      () => null,
      (error: { stdout: string; stderr: string }) => error,
    );
    if (!died) throw new Error('the process filled its heap and lived');
    expect(died.stderr).toMatch(/heap limit|heap out of memory/i);
    const samples = died.stdout
      .trim()
      .split('\n')
      .map((line) => line.split(' ').map(Number)) as [number, number][];
    const peak = Math.max(...samples.map(([used]) => used));
    const limit = samples[0]?.[1] ?? 0;
    expect(peak).toBeGreaterThan(0.9 * oldGenerationLimit(flags, limit));
    expect(peak).toBeLessThan(0.9 * limit);
  }, 30_000);
});

describe("the old generation's pace", () => {
  it('is set where V8 would grow the old generation by less than twice its live size, unless the operator set it', () => {
    const ours = `--heap-growing-percent=${OLD_GENERATION_GROWTH_PERCENT}`;
    expect(oldGenerationGrowthFlag(['--max-old-space-size=160'])).toBe(ours);
    expect(oldGenerationGrowthFlag(['--max-old-space-size=2047'])).toBe(ours);
    expect(oldGenerationGrowthFlag(['--max-old-space-size=2048'])).toBeNull();
    expect(oldGenerationGrowthFlag([], 4096 * MIB)).toBeNull();
    expect(oldGenerationGrowthFlag([], 1024 * MIB)).toBe(ours);
    for (const theirs of ['--heap-growing-percent=30', '--heap_growing_percent=250', '--heap-growing-percent']) {
      expect(oldGenerationGrowthFlag(['--max-old-space-size=160', theirs]), theirs).toBeNull();
    }
  });

  it('takes effect when set in a running process: V8 says the factor it took, and collects less often', async () => {
    const flag = oldGenerationGrowthFlag(['--max-old-space-size=160']);
    if (!flag) throw new Error('no flag for a 160 MiB old generation');
    // 20 MB held for good, and 12,000 batches of strings each held while the next 400 are made (promoted):
    // the full collections counted, and V8's own line for each new limit ("[HeapController] factor 1.3 ...").
    const script = `
      const v8 = require('node:v8');
      const { PerformanceObserver, constants } = require('node:perf_hooks');
      if (process.argv[1]) v8.setFlagsFromString(process.argv[1]);
      let majors = 0;
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) if (e.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors++;
      }).observe({ entryTypes: ['gc'] });
      const held = Array.from({ length: 300000 }, (_, i) => ({ id: 'k' + i, n: i }));
      const inFlight = [];
      for (let batch = 0; batch < 12000; batch++) {
        inFlight.push(Array.from({ length: 1000 }, (_, i) => 'row ' + batch + ' ' + i));
        if (inFlight.length > 400) inFlight.shift();
      }
      setTimeout(() => console.log('majors ' + majors + ' held ' + held.length), 100);`;
    const runWith = async (setFlag: string) => {
      const args = ['--max-old-space-size=160', '--max-semi-space-size=16', '--trace-gc-verbose', '-e', script];
      const { stdout } = await run(process.execPath, [...args, setFlag], { maxBuffer: 256 * MIB });
      const factors = [...stdout.matchAll(/\[HeapController\] factor ([\d.]+)/g)].map((m) => Number(m[1]));
      return { factors, majors: Number(/majors (\d+) held/.exec(stdout)?.[1]) };
    };
    const [v8s, ours] = [await runWith(''), await runWith(flag)];
    expect(v8s.factors.length).toBeGreaterThan(3);
    expect(Math.max(...v8s.factors)).toBeLessThanOrEqual(1.3);
    expect(ours.factors.length).toBeGreaterThan(3);
    expect(new Set(ours.factors)).toEqual(new Set([1 + OLD_GENERATION_GROWTH_PERCENT / 100]));
    expect(ours.majors).toBeLessThan(v8s.majors);
  }, 60_000);
});
