/**
 * The validators of the operations that take a body (the token endpoint's, the sign-out's): Fastify's Ajv as
 * Fastify builds it (@fastify/ajv-compiler, the same defaults and formats) but without type coercion. A URL's
 * parameters need coercion (`limit=20` is text), a body does not: JSON says what type each value is, a form's
 * values are all text. Coerced, `{"refresh_token": true}` reached the grant as the text "true" and
 * `{"scope": ["general"]}` as "general", where the spec allows a string alone (10201). These operations'
 * other parameters are text in the spec. Set on those routes only: Fastify leaves a header schema as written
 * (not lowercased) for a route with its own compiler, and these routes have none.
 */
import { AjvCompiler } from '@fastify/ajv-compiler';
import type { FastifySchemaCompiler } from 'fastify';

const compile = AjvCompiler()(
  {},
  // The spec's own keyword (read by the error handler), as fastify-options.ts gives Fastify's Ajv.
  { customOptions: { coerceTypes: false, keywords: ['x-unknown-tag-error'] } },
) as unknown as FastifySchemaCompiler<unknown>;

export const exactValidators: FastifySchemaCompiler<unknown> = (route) => compile(route);
