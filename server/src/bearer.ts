/**
 * The `bearer` security scheme of the spec (glue calls the handler named after it on every protected
 * operation): the access token of `Authorization: Bearer …` becomes the request's caller, or a 401.
 */
import type { FastifyRequest } from 'fastify';
import type { Services } from './context.js';
import { verifyAccessToken } from './domain/access-token.js';
import type { Caller } from './domain/token-settings.js';

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
  }
}

export function bearer(services: Pick<Services, 'tokens' | 'now'>) {
  return async (request: FastifyRequest): Promise<void> => {
    request.caller = await verifyAccessToken(
      request.headers.authorization,
      services.tokens,
      Math.floor(services.now() / 1000),
    );
  };
}
