/**
 * Set up before each server test file (vitest.config.ts's setupFiles): the apps the tests build (some 160 in a
 * run) share one compiled validator of the OpenAPI meta-schema. fastify-openapi-glue checks the spec with a new
 * @seriousme/openapi-schema-validator at every app's start, and compiling its meta-schema was about 90 ms of each
 * `buildApp` (15 s of the suite's CPU). A server builds one app: this is the tests' cost alone, and the check
 * itself still runs for every app.
 */
import { Validator } from '@seriousme/openapi-schema-validator';

type Compile = (this: Validator, version: string) => unknown;
const prototype = Validator.prototype as unknown as { getAjvValidator?: Compile; sharedByTests?: true };

if (typeof prototype.getAjvValidator !== 'function') {
  // Loudly: a renamed method would otherwise leave every app compiling its own again, unnoticed.
  throw new Error(
    '@seriousme/openapi-schema-validator has no getAjvValidator any more: update test/support/shared-validators.ts',
  );
}
if (!prototype.sharedByTests) {
  const compile = prototype.getAjvValidator;
  const compiled = new Map<string, unknown>();
  prototype.getAjvValidator = function (version) {
    if (!compiled.has(version)) compiled.set(version, compile.call(this, version));
    return compiled.get(version);
  };
  prototype.sharedByTests = true;
}
