/**
 * The route's own security check (route-security.ts): made only where the spec requires exactly one scheme,
 * and a request goes on only when that scheme's check passed, whether the check throws, rejects or returns.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../src/errors.js';
import { ownSecurityCheck, type SecurityCheck } from '../src/route-security.js';

const request = {} as FastifyRequest;
const reply = {} as FastifyReply;

/** What the hook hands to `done`: nothing (the request goes on) or the failure. */
function outcome(check: SecurityCheck): Promise<unknown[]> {
  const hook = ownSecurityCheck([{ bearer: [] }], { bearer: check });
  if (!hook) throw new Error('no hook');
  return new Promise((resolve) => {
    (hook as (r: FastifyRequest, p: FastifyReply, done: (...args: unknown[]) => void) => void)(
      request,
      reply,
      (...args) => resolve(args),
    );
  });
}

describe('the route security check', () => {
  it('lets the request on when the scheme passes, synchronously or not', async () => {
    expect(await outcome(() => {})).toEqual([]);
    expect(await outcome(async () => {})).toEqual([]);
  });

  it('hands the failure on as the check threw or rejected it', async () => {
    const refusal = new ApiError('invalid_access_token');
    expect(
      await outcome(() => {
        throw refusal;
      }),
    ).toEqual([refusal]);
    expect(await outcome(async () => Promise.reject(refusal))).toEqual([refusal]);
    const bug = new TypeError('a bug');
    expect(
      await outcome(() => {
        throw bug;
      }),
    ).toEqual([bug]);
  });

  it('is not made for alternatives, several schemes together, no requirement or a scheme without a check (glue keeps its own)', () => {
    const checks = { bearer: () => {}, other: () => {} };
    expect(ownSecurityCheck([{ bearer: [] }, { other: [] }], checks)).toBeUndefined();
    // An empty alternative (`{}`) makes the scheme optional: not a single requirement.
    expect(ownSecurityCheck([{ bearer: [] }, {}], checks)).toBeUndefined();
    expect(ownSecurityCheck([{ bearer: [], other: [] }], checks)).toBeUndefined();
    expect(ownSecurityCheck([], checks)).toBeUndefined();
    expect(ownSecurityCheck(undefined, checks)).toBeUndefined();
    expect(ownSecurityCheck([{ unknown: [] }], checks)).toBeUndefined();
    expect(ownSecurityCheck([{ bearer: [] }], checks)).toBeTypeOf('function');
  });
});
