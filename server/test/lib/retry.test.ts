/** Backoff and retrying: the pauses grow to their cap with jitter; only transient failures are retried, for a bounded time. */
import { describe, expect, it } from 'vitest';
import { backoffDelay, RetryGaveUp, retrying } from '../../src/lib/retry.js';

class Transient extends Error {}

const fast = { firstMs: 2, capMs: 10 };

describe('backoffDelay', () => {
  it('doubles from 250 ms to a cap of 5 s, of which jitter takes away at most half', () => {
    const lowest = Array.from({ length: 8 }, (_, retry) => backoffDelay(retry, undefined, () => 0));
    const highest = Array.from({ length: 8 }, (_, retry) => backoffDelay(retry, undefined, () => 1));
    expect(highest).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000, 5000]);
    expect(lowest).toEqual([125, 250, 500, 1000, 2000, 2500, 2500, 2500]);
    expect(backoffDelay(1_000_000)).toBeLessThanOrEqual(5000);
  });
});

describe('retrying', () => {
  it('retries a transient failure until it succeeds, saying when it was lost and when it is back', async () => {
    const events: string[] = [];
    let tries = 0;
    const result = await retrying(
      async () => {
        tries++;
        if (tries < 4) throw new Transient(`try ${tries}`);
        return 'done';
      },
      {
        retryForMs: 10_000,
        transient: (e) => e instanceof Transient,
        backoff: fast,
        lost: (e) => events.push(`lost: ${(e as Error).message}`),
        failed: (e) => events.push(`failed: ${(e as Error).message}`),
        back: () => events.push('back'),
      },
    );
    expect(result).toBe('done');
    expect(events).toEqual(['lost: try 1', 'failed: try 2', 'failed: try 3', 'back']);
  });

  it('throws any other failure at once, and with no time allowed, a transient one too', async () => {
    let tries = 0;
    const refused = new Error('a bad record');
    await expect(
      retrying(
        async () => {
          tries++;
          throw refused;
        },
        { retryForMs: 10_000, transient: (e) => e instanceof Transient, backoff: fast },
      ),
    ).rejects.toBe(refused);
    expect(tries).toBe(1);
    const lost = new Transient('down');
    await expect(
      retrying(
        async () => {
          tries++;
          throw lost;
        },
        { retryForMs: 0, transient: () => true, backoff: fast },
      ),
    ).rejects.toBe(lost);
    expect(tries).toBe(2);
  });

  it('gives up once the time allowed is over, with the last failure', async () => {
    let tries = 0;
    const started = Date.now();
    const failure = await retrying(
      async () => {
        tries++;
        throw new Transient(`try ${tries}`);
      },
      { retryForMs: 100, transient: () => true, backoff: fast },
    ).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(RetryGaveUp);
    expect((failure as RetryGaveUp).stopped).toBe(false);
    expect(((failure as RetryGaveUp).last as Error).message).toBe(`try ${tries}`);
    expect((failure as RetryGaveUp).waitedMs).toBeGreaterThanOrEqual(100);
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    expect(tries).toBeGreaterThan(5);
  });

  it('a signal ends the wait at once', async () => {
    const stop = new AbortController();
    const waiting = retrying(
      async () => {
        throw new Transient('down');
      },
      { retryForMs: 60_000, transient: () => true, backoff: { firstMs: 10_000, capMs: 10_000 }, signal: stop.signal },
    ).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 20));
    const asked = Date.now();
    stop.abort();
    const failure = await waiting;
    expect(failure).toBeInstanceOf(RetryGaveUp);
    expect((failure as RetryGaveUp).stopped).toBe(true);
    expect(Date.now() - asked).toBeLessThan(5000);
  });
});
