/**
 * The query's integer parameters as the spec writes them, checked before validation (the route's
 * `preValidation`, routes.ts): the validator would coerce more than the spec allows.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';

/** An integer parameter as written in a URL: decimal digits after a minus sign at most. */
const DECIMAL_INTEGER = /^-?\d+$/;

/**
 * The query's integer parameters (`names`) checked as written, before validation: the validator's coercion
 * takes any text JavaScript reads as a number ("0x10", " 1", "1e1", "+5", "Infinity"), and digits past
 * 2^53 as a number they are not. Repeated parameters (arrays) are the validator's to refuse.
 */
export function decimalIntegers(names: readonly string[]) {
  return (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
    const query = request.query as Record<string, unknown> | undefined;
    for (const name of names) {
      const value = query?.[name];
      if (typeof value === 'string' && !(DECIMAL_INTEGER.test(value) && Number.isSafeInteger(Number(value)))) {
        done(
          new ApiError('invalid_parameter', `querystring/${name} must be a decimal integer`, {
            details: { parameter: name },
          }),
        );
        return;
      }
    }
    done();
  };
}
