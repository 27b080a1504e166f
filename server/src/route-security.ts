/**
 * An operation's security check, made by its route: the check of the one scheme the spec requires, in place
 * of fastify-openapi-glue's general one (routes.ts).
 */
import type { FastifyRequest, preHandlerHookHandler } from 'fastify';

/** A security scheme's check (glue's `securityHandlers`): throws, or rejects, when the request does not pass. */
export type SecurityCheck = (request: FastifyRequest) => void | Promise<void>;

/** An OpenAPI security requirement (scheme name: scopes); an operation lists alternatives. */
export type SecurityRequirement = Readonly<Record<string, readonly string[]>>;

/**
 * The operation's security check as a route hook of its own, when the spec requires exactly one scheme (every
 * protected operation of this spec: `bearer`); undefined otherwise, and glue's own check stays. Glue's is an
 * async function that tries each alternative and collects the failures: a promise, two microtasks and a few
 * arrays on every signed-in request, about 3% of a signed-in read's own work (bench/postgres-floor.md), for
 * alternatives this spec does not have. A failure reaches the error handler as the check threw it (an
 * ApiError is its own answer, anything else a 500), as glue's wrapping of it did.
 */
export function ownSecurityCheck(
  requirements: readonly SecurityRequirement[] | undefined,
  checks: Readonly<Record<string, SecurityCheck>>,
): preHandlerHookHandler | undefined {
  const [only, ...others] = requirements ?? [];
  const schemes = only ? Object.keys(only) : [];
  const check = schemes.length === 1 && others.length === 0 ? checks[schemes[0] as string] : undefined;
  if (!check) return undefined;
  return (request, _reply, done) => {
    let pending: void | Promise<void>;
    try {
      pending = check(request);
    } catch (error) {
      done(error as Error);
      return;
    }
    if (pending instanceof Promise) pending.then(() => done(), done);
    else done();
  };
}
