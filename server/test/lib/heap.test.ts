/**
 * Where a process's heap ends (lib/heap.ts): the old generation's limit, read from the flags V8 was given,
 * checked against real Node processes: the flags' arithmetic gives V8's own `heap_size_limit` back, and a
 * process filling its heap dies past 90% of that limit but before 90% of `heap_size_limit` (where the heap
 * guard sat before, so that it never refused anything before the process died).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { flagMib, nodeFlags, oldGenerationLimit } from '../../src/lib/heap.js';

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
