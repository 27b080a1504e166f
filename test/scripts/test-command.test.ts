/**
 * `npm test -- <path>` (scripts/test.mjs): a file or folder of a workspace runs that workspace alone, vitest
 * given the path within it; turbo's own options and vitest's (after a second `--`) pass through as they are.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runsFor, turboArgsOf } from '../../scripts/test.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('npm test -- <arguments>', () => {
  it('runs every workspace when given nothing, the small suites first, and passes turbo options through', () => {
    const small = ['--filter=@gateway/client', '--filter=@gateway/react', '--filter=@gateway/ledger'];
    const big = ['--filter=@gateway/server', '--filter=@gateway/contract-tests'];
    expect(runsFor([], root)).toEqual([
      { turboArgs: small, vitestArgs: [] },
      { turboArgs: big, vitestArgs: [] },
    ]);
    expect(runsFor(['--summarize'], root)).toEqual([
      { turboArgs: ['--summarize', ...small], vitestArgs: [] },
      { turboArgs: ['--summarize', ...big], vitestArgs: [] },
    ]);
    expect(runsFor(['--filter=@gateway/client'], root)).toEqual([
      { turboArgs: ['--filter=@gateway/client'], vitestArgs: [] },
    ]);
  });

  it('runs one file in its workspace alone, from the root or from inside the workspace', () => {
    const one = [{ turboArgs: ['--filter=@gateway/server'], vitestArgs: ['test/cli.test.ts'] }];
    expect(runsFor(['server/test/cli.test.ts'], root)).toEqual(one);
    expect(runsFor(['test/cli.test.ts'], path.join(root, 'server'))).toEqual(one);
  });

  it('runs a folder of the contract tests, a whole workspace, and vitest options after a second --', () => {
    expect(runsFor(['test/cluster', '--', '-t', 'outage'], root)).toEqual([
      { turboArgs: ['--filter=@gateway/contract-tests'], vitestArgs: ['cluster', '-t', 'outage'] },
    ]);
    expect(runsFor(['ledger'], root)).toEqual([{ turboArgs: ['--filter=@gateway/ledger'], vitestArgs: [] }]);
  });

  it('runs paths of two workspaces one workspace after the other', () => {
    expect(runsFor(['client/test/policy.test.ts', 'react/test'], root)).toEqual([
      { turboArgs: ['--filter=@gateway/client'], vitestArgs: ['test/policy.test.ts'] },
      { turboArgs: ['--filter=@gateway/react'], vitestArgs: ['test'] },
    ]);
  });

  it('gives turbo --continue once, whether or not it was typed (turbo refuses a flag given twice)', () => {
    const big = runsFor(['--summarize', '--continue', '--', '--reporter=json'], root)[1];
    expect(big).toBeDefined();
    expect(turboArgsOf(big as NonNullable<typeof big>)).toEqual([
      'run',
      'test',
      '--log-order=grouped',
      '--summarize',
      '--continue',
      '--filter=@gateway/server',
      '--filter=@gateway/contract-tests',
      '--',
      '--reporter=json',
    ]);
    expect(turboArgsOf({ turboArgs: ['--filter=@gateway/client'], vitestArgs: [] })).toEqual([
      'run',
      'test',
      '--log-order=grouped',
      '--continue',
      '--filter=@gateway/client',
    ]);
  });
});
