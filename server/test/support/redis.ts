/**
 * The Redis the tests use (TEST_REDIS_URL, or 127.0.0.1:6379), as test/src/services.ts finds it: on a
 * developer's machine a missing one skips the tests that need it, with one line saying which and how to
 * enable them; with CI set, it fails the run, so that CI's coverage cannot shrink unnoticed. Tests never stop
 * it: they reach it through a TCP proxy they can cut (support/tcp-proxy.ts).
 */
import net from 'node:net';

const URL_TO_TRY = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const CI = !['', '0', 'false'].includes(process.env.CI ?? '');

/** Why nothing answers at `url` (null when a connection opens). */
export function redisProblem(url: string): Promise<string | null> {
  const { hostname, port } = new URL(url);
  const socket = net.connect({ host: hostname, port: Number(port || 6379), timeout: 3000 });
  return new Promise<string | null>((resolve) => {
    socket.once('connect', () => resolve(null));
    socket.once('timeout', () => resolve('no answer in 3 s'));
    socket.once('error', (error) => resolve(error.message));
  }).finally(() => socket.destroy());
}

export interface TestRedis {
  host: string;
  port: number;
  /** Its URL (credentials and database kept) with another port on this machine: a proxy's. */
  urlThrough(port: number): string;
}

/** The Redis to test with, or null when none answers (after saying what is skipped, or failing under CI). */
export async function testRedis(skipped: string): Promise<TestRedis | null> {
  const problem = await redisProblem(URL_TO_TRY);
  if (problem === null) {
    const url = new URL(URL_TO_TRY);
    return {
      host: url.hostname,
      port: Number(url.port || 6379),
      urlThrough(port) {
        const through = new URL(URL_TO_TRY);
        through.hostname = '127.0.0.1';
        through.port = String(port);
        return through.toString();
      },
    };
  }
  const why = `nothing answers at ${URL_TO_TRY} (${problem})`;
  if (CI)
    throw new Error(
      `CI is set, so the Redis the tests use is required: ${why}; start Redis there, or set TEST_REDIS_URL`,
    );
  console.log(`Skipped ${skipped}: ${why}; to enable, start Redis there, or set TEST_REDIS_URL.`);
  return null;
}
