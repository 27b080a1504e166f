/**
 * The `bearer` security scheme of the spec (glue calls the handler named after it on every protected
 * operation): the access token of `Authorization: Bearer …` becomes the request's caller, or a 401.
 */
import type { FastifyRequest } from 'fastify';
import type { Services } from './context.js';
import { callerOfAccessToken } from './domain/access-token.js';
import type { Caller } from './domain/token-settings.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in caller, once the bearer check passed; null until then and on public operations. */
    caller: Caller | null;
  }
}

/** Synchronous (glue awaits what it returns, and catches what it throws): no promise of its own per request. */
export function bearer(services: Pick<Services, 'tokens' | 'now'>) {
  return (request: FastifyRequest): void => {
    request.caller = callerOfAccessToken(
      request.headers.authorization,
      services.tokens,
      Math.floor(services.now() / 1000),
    );
  };
}
