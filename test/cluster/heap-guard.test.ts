/**
 * A heap that fills is refused work, not a dead process: the real server under a 128 MiB old generation,
 * its heap filled (by a preloaded stand-in, support/heap-hog.mjs) to 93% of that, short of where V8 stops
 * it. The instance refuses every request with 503 (11202, Retry-After) and goes on answering /health and
 * /metrics, and answers as before once the heap is back down. Before the guard measured the old
 * generation, its 90% lay at 158 MiB of a 176 MiB `heap_size_limit`, past the 128 MiB where the process
 * dies, so such a heap was never refused anything: it answered 200 until it was stopped.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { gatewayPid, isAlive } from '../attack/support/process.js';
import { type RunningGateway, startGateway } from '../src/gateway.js';

const OLD_SPACE_MIB = 128;
const HOG = fileURLToPath(new URL('./support/heap-hog.mjs', import.meta.url));

describe(`an instance whose heap fills to 93% of its ${OLD_SPACE_MIB} MiB old generation`, () => {
  let gateway: RunningGateway;
  let pid: number;
  beforeAll(async () => {
    gateway = await startGateway({
      NODE_OPTIONS: `--max-old-space-size=${OLD_SPACE_MIB} --import=${HOG}`,
      HEAP_HOG_PERCENT: '93',
    });
    pid = gatewayPid(gateway.dataDir) ?? 0;
    expect(pid, 'the gateway process').toBeGreaterThan(0);
  });
  afterAll(() => gateway?.stop());

  const get = (path: string) => fetch(`${gateway.url}${path}`, { headers: { accept: 'application/json' } });
  const shed = async () => {
    const text = await (await fetch(`${gateway.url}/metrics`, { headers: { accept: 'text/plain' } })).text();
    return Number(/^gateway_requests_shed_total\{reason="heapUsedBytes"\} (\d+)$/m.exec(text)?.[1] ?? 0);
  };

  it('refuses requests with 503 (11202) while full, answers /health and /metrics, lives, and recovers', async () => {
    expect((await get('/v1/platforms')).status).toBe(200);
    const shedBefore = await shed();

    process.kill(pid, 'SIGUSR2');
    await vi.waitFor(() => expect(gateway.output()).toMatch(/heap-hog: filled/), { timeout: 20_000, interval: 100 });
    // The heap is sampled once a second.
    const refused = await vi.waitFor(
      async () => {
        const answer = await get('/v1/platforms/ETH');
        expect(answer.status).toBe(503);
        return answer;
      },
      { timeout: 5_000, interval: 100 },
    );
    expect(await refused.json()).toEqual({ errors: [{ code: 11202, message: expect.any(String) }] });
    expect(refused.headers.get('retry-after')).toBe('5');
    const signIn = await fetch(`${gateway.url}/v1/oauth2/token`, { method: 'POST', body: new URLSearchParams({}) });
    expect(signIn.status).toBe(503);
    for (const path of ['/health/live', '/health/ready']) expect((await get(path)).status, path).toBe(200);
    expect(await shed()).toBeGreaterThan(shedBefore + 1);
    expect(isAlive(pid), gateway.output()).toBe(true);

    process.kill(pid, 'SIGUSR2');
    await vi.waitFor(() => expect(gateway.output()).toMatch(/heap-hog: released/), { timeout: 5_000, interval: 100 });
    await vi.waitFor(async () => expect((await get('/v1/platforms/ETH')).status).toBe(200), {
      timeout: 5_000,
      interval: 100,
    });
    expect(isAlive(pid)).toBe(true);
  }, 60_000);
});
