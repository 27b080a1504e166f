/**
 * The bundled spec as a validator: checks that a response's body is what the spec says for the
 * operation and status.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { errorCatalogue, type OperationId, operationMeta } from '@gateway/generated';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { BUNDLED_SPEC } from './prism.js';

// ajv-formats is CommonJS whose module.exports is the plugin itself.
const addFormats: typeof import('ajv-formats').default = createRequire(import.meta.url)('ajv-formats');

type Json = Record<string, unknown>;
export const spec = JSON.parse(readFileSync(BUNDLED_SPEC, 'utf8')) as Json & { paths: Record<string, Json> };
const SPEC_ID = 'https://gateway.local/openapi.json';

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
addFormats(ajv);
ajv.addSchema(spec, SPEC_ID);

const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

function resolve(node: Json): Json {
  let current = node;
  while (typeof current.$ref === 'string') {
    current = (current.$ref as string)
      .slice(2)
      .split('/')
      .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<Json>((acc, key) => acc[key] as Json, spec);
  }
  return current;
}

/** The documented responses of an operation, by status. */
export function documentedResponses(operationId: OperationId): Record<string, Json> {
  const meta = operationMeta[operationId];
  const operation = spec.paths[meta.path]?.[meta.method.toLowerCase()] as Json;
  return operation.responses as Record<string, Json>;
}

interface ResponseObject {
  content?: Record<string, { examples?: Record<string, { value?: { errors?: { code: number }[] } }> }>;
}

/** A documented response with its `$ref` followed (undefined when there is none). */
export function resolveResponse(response: Json | undefined): ResponseObject | undefined {
  return response ? (resolve(response) as ResponseObject) : undefined;
}

/** Validates `body` against the JSON schema of the operation's `status` response. Returns the problems. */
export function responseProblems(operationId: OperationId, status: number, body: unknown): string[] {
  const meta = operationMeta[operationId];
  const responses = documentedResponses(operationId);
  const documented = responses[String(status)];
  if (!documented) return [`status ${status} is not documented for ${operationId}`];
  const response = resolve(documented);
  const content = response.content as Record<string, Json> | undefined;
  if (!content) return body === undefined || body === '' ? [] : ['unexpected body'];
  if (!content['application/json']) return typeof body === 'string' && body.length > 0 ? [] : ['expected a text body'];
  const ref = `${SPEC_ID}#/${
    typeof documented.$ref === 'string'
      ? `${(documented.$ref as string).slice(2)}/content/application~1json/schema`
      : pointer(
          'paths',
          meta.path,
          meta.method.toLowerCase(),
          'responses',
          String(status),
          'content',
          'application/json',
          'schema',
        )
  }`;
  const validate = ajv.getSchema(ref);
  if (!validate) return [`no schema at ${ref}`];
  if (validate(body)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
}

/** Validates an error body against the spec's ErrorBody schema (for answers no operation owns). */
export function errorBodyProblems(body: unknown): string[] {
  const validate = ajv.getSchema(`${SPEC_ID}#/components/schemas/ErrorBody`);
  if (!validate) return ['no ErrorBody schema in the spec'];
  return validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
}

/** Problems with an error body's codes: each must be in the catalogue, with the response's status. */
export function errorCodeProblems(status: number, body: unknown): string[] {
  const errors = (body as { errors?: { code: number }[] }).errors ?? [];
  return errors.flatMap(({ code }) => {
    const entry = Object.values(errorCatalogue).find((e) => e.code === code);
    if (!entry) return [`code ${code} is not in the catalogue`];
    return entry.status === status ? [] : [`code ${code} belongs with status ${entry.status}, not ${status}`];
  });
}
