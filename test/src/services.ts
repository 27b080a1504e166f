/**
 * Redis and Chromium widen the run. On a developer's machine a missing one skips the tests that need it, with
 * one line saying what, why and how to enable them; with CI set, a missing one fails the run, naming it, so
 * that CI's coverage cannot shrink unnoticed.
 */
import { execFile } from 'node:child_process';
import type { TestProject } from 'vitest/node';
import { redisProblem } from '../../server/test/support/redis.js';
import { CHROMIUM } from './chromium.js';
import { PGBOUNCER, pgbouncerProblem } from './pgbouncer.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The Redis to test with, or '' when none answers. */
    redisUrl: string;
    /** Whether Chromium starts. */
    chromium: boolean;
    /** Whether PgBouncer starts (src/pgbouncer.ts). */
    pgbouncer: boolean;
  }
}

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const CI = !['', '0', 'false'].includes(process.env.CI ?? '');

/** Why Chromium cannot run (null when it reports its version). */
function chromiumProblem(): Promise<string | null> {
  return new Promise((resolve) => {
    // A first start on a busy machine can take long: a slow answer is not a missing browser.
    execFile(CHROMIUM, ['--version'], { timeout: 60_000 }, (error, stdout) => {
      if (error) resolve(error.message);
      else resolve(/\d+\.\d+/.test(stdout) ? null : `no version in its answer: ${JSON.stringify(stdout)}`);
    });
  });
}

export default async function setup(project: TestProject) {
  const [redis, chromium] = await Promise.all([redisProblem(REDIS_URL), chromiumProblem()]);
  const missing: { service: string; skipped: string; why: string; enable: string }[] = [];
  if (redis !== null) {
    missing.push({
      service: 'Redis',
      skipped:
        "the test of the token endpoint's rate limit shared through Redis (cluster/instances.test.ts) and of Redis spans (cluster/tracing.test.ts)",
      why: `nothing answers at ${REDIS_URL} (${redis})`,
      enable: 'start Redis there, or set TEST_REDIS_URL',
    });
  }
  if (chromium !== null) {
    missing.push({
      service: 'Chromium',
      skipped: 'the browser suites (browser/, and the packed client in Chromium in package/)',
      why: `${CHROMIUM} does not run (${chromium})`,
      enable: "install Debian's chromium package (apt-get install chromium), or set CHROMIUM_PATH",
    });
  }
  const pgbouncer = pgbouncerProblem();
  if (pgbouncer !== null) {
    missing.push({
      service: 'PgBouncer',
      skipped: 'the suite of instances behind a transaction pooler (cluster/pooler.test.ts)',
      why: `${PGBOUNCER} does not run (${pgbouncer})`,
      enable: "install Debian's pgbouncer package (apt-get install pgbouncer), or set PGBOUNCER_PATH",
    });
  }
  if (CI && missing.length > 0) {
    const list = missing.map((m) => `\n  ${m.service}: ${m.why}; ${m.enable}`).join('');
    throw new Error(`CI is set, so every service the tests use is required; missing:${list}`);
  }
  for (const m of missing) console.log(`Skipped ${m.skipped}: ${m.why}; to enable, ${m.enable}.`);
  project.provide('redisUrl', redis === null ? REDIS_URL : '');
  project.provide('chromium', chromium === null);
  project.provide('pgbouncer', pgbouncer === null);
}
