/**
 * Model-based suites (fast-check): random sequences of operations run against the real server and checked,
 * step by step, against a small model of what the spec promises. `npm test` runs a few sequences;
 * `npm run prove` runs many more (MODEL_RUNS). A failure prints the seed and path of the shrunk sequence;
 * MODEL_SEED and MODEL_PATH replay exactly that sequence:
 *
 *   MODEL_SEED=123 MODEL_PATH="4:1:0" npx vitest run test/model/tokens.test.ts
 */
import fc from 'fast-check';
import { recordFigures } from './figures.js';

/** Sequences per property: MODEL_RUNS when set (prove), else the suite's own fast number. */
export function modelRuns(fast: number): number {
  const runs = Number(process.env.MODEL_RUNS);
  return Number.isInteger(runs) && runs > 0 ? runs : fast;
}

/** Counts the steps of a suite (commands run against the server), for the prove table. */
export class StepCounter {
  steps = 0;
  sequences = 0;
}

/**
 * Checks `property` over `runs` sequences with shrinking on. On a counterexample the error names the seed
 * and path to replay it with. The suite's figures are written for the prove table: sequences, steps and
 * divergences (0 when the property held).
 */
export async function checkModel<T>(
  name: string,
  property: fc.IAsyncPropertyWithHooks<T>,
  counter: StepCounter,
  runs: number,
): Promise<void> {
  const seed = process.env.MODEL_SEED === undefined ? undefined : Number(process.env.MODEL_SEED);
  const replayPath = process.env.MODEL_PATH;
  const details = await fc.check(property, {
    numRuns: runs,
    ...(seed === undefined ? {} : { seed }),
    ...(replayPath === undefined ? {} : { path: replayPath }),
  });
  recordFigures(`model-${name}`, {
    runs,
    sequences: counter.sequences,
    steps: counter.steps,
    divergences: details.failed ? 1 : 0,
    seed: details.seed,
  });
  if (details.failed) {
    const replay = `MODEL_SEED=${details.seed} MODEL_PATH="${details.counterexamplePath}"`;
    console.error(`model ${name}: a sequence diverged; replay it with ${replay}`);
    const cause =
      details.errorInstance instanceof Error ? details.errorInstance : new Error(String(details.errorInstance));
    throw new Error(`${fc.defaultReportMessage(details)}\n${cause.stack ?? cause.message}\nreplay: ${replay}`, {
      cause,
    });
  }
}
