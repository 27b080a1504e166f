/**
 * Every answer checked against the spec: each app the server's tests build (through `buildApp`'s test hook,
 * src/test-hooks.ts) validates each response body against the operation's documented schema for its status
 * and media type (Ajv 2020 over the generated OpenAPI document). Pre-rendered documents (JsonText: stored
 * movements and trades, the catalogue's answers) are parsed and checked like any other body; streams
 * (text/event-stream) and text bodies are checked by media type only. A violation is recorded, and the
 * `afterEach` of answers-setup.ts fails the test with the operation, the status and the violation.
 */
import { createRequire } from 'node:module';
import type { ValidateFunction } from 'ajv';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

const require = createRequire(import.meta.url);
const { Ajv2020 } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
const addFormats = require('ajv-formats') as typeof import('ajv-formats').default;

type Json = Record<string, unknown>;
const document = require('@gateway/generated/openapi.json') as Json & { paths: Record<string, Record<string, Json>> };

const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
addFormats(ajv);
ajv.addSchema(document, 'openapi.json');

/** What a test finds wrong in an answer. */
export interface Violation {
  operation: string;
  method: string;
  url: string;
  status: number;
  problem: string;
}

const violations: Violation[] = [];

/** The violations recorded since the last call, taken (a test that expects some reads them here). */
export function takeViolations(): Violation[] {
  return violations.splice(0);
}

export const describeViolation = (v: Violation) =>
  `${v.operation} (${v.method} ${v.url}) answered ${v.status}: ${v.problem}`;

const pointerKey = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');

/** A `#/...` reference followed to its pointer and object. */
function resolve(pointer: string, value: Json): { pointer: string; value: Json } {
  let here = { pointer, value };
  while (typeof here.value.$ref === 'string') {
    const ref = here.value.$ref;
    const target = ref
      .slice(2)
      .split('/')
      .reduce<unknown>((node, key) => (node as Json)[key.replaceAll('~1', '/').replaceAll('~0', '~')], document);
    here = { pointer: ref.slice(1), value: target as Json };
  }
  return here;
}

interface Documented {
  operation: string;
  /** Media type -> the schema's pointer in the document (null: none documented). */
  media: Map<string, string | null>;
}

const operations = new Map<string, { pointer: string; operation: Json }>();
for (const [path, item] of Object.entries(document.paths)) {
  for (const [method, operation] of Object.entries(item)) {
    if (typeof operation.operationId !== 'string') continue;
    operations.set(operation.operationId, { pointer: `/paths/${pointerKey(path)}/${method}`, operation });
  }
}

/** The responses documented for an operation's status (its exact code, its class `4XX`, or `default`). */
function documented(operationId: string, status: number): Documented | null {
  const found = operations.get(operationId);
  if (!found) return null;
  const responses = (found.operation.responses ?? {}) as Record<string, Json>;
  const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => responses[k]);
  if (!key) return null;
  const response = resolve(`${found.pointer}/responses/${pointerKey(key)}`, responses[key] as Json);
  const media = new Map<string, string | null>();
  for (const [type, content] of Object.entries((response.value.content ?? {}) as Record<string, Json>)) {
    media.set(type, content.schema ? `${response.pointer}/content/${pointerKey(type)}/schema` : null);
  }
  return { operation: operationId, media };
}

const compiled = new Map<string, ValidateFunction>();
/** Compiled once per operation, status and media type (one schema pointer). */
function validator(pointer: string): ValidateFunction {
  let validate = compiled.get(pointer);
  if (!validate) {
    validate = ajv.compile({ $ref: `openapi.json#${pointer}` });
    compiled.set(pointer, validate);
  }
  return validate;
}

const mediaType = (header: unknown) =>
  String(header ?? '')
    .split(';')[0]
    ?.trim()
    .toLowerCase() ?? '';

/** The problems of one answer (none: it is what the spec documents). */
export function problemsOf(operationId: string, status: number, contentType: unknown, payload: unknown): string[] {
  const responses = documented(operationId, status);
  if (!responses) return [`status ${status} is not documented for ${operationId}`];
  const type = mediaType(contentType);
  const isEmpty = payload === undefined || payload === null || payload === '' || status === 204 || status === 304;
  if (responses.media.size === 0)
    return isEmpty ? [] : [`a body (${type || 'no content type'}) where none is documented`];
  if (isEmpty) return ['no body where one is documented'];
  if (!responses.media.has(type)) {
    return [`content type ${type || '(none)'} is not documented (${[...responses.media.keys()].join(', ')})`];
  }
  const pointer = responses.media.get(type);
  // Streams and text (event streams, /metrics) are checked by media type only.
  if (!pointer || !type.endsWith('json')) return [];
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return [];
  let body: unknown;
  try {
    body = JSON.parse(payload.toString());
  } catch {
    return ['the body is not JSON'];
  }
  const validate = validator(pointer);
  if (validate(body)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '(body)'} ${e.message ?? ''}${paramsOf(e.params)}`);
}

/** What Ajv's message leaves out: the unknown property's name, the allowed values. */
const paramsOf = (params: Record<string, unknown>) => {
  const said = Object.entries(params).filter(([k]) => k === 'additionalProperty' || k === 'allowedValues');
  return said.length ? ` (${said.map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join(', ')})` : '';
};

/** Installs the checker on an app: an onSend hook, added before any plugin so that it sees every route. */
export function checkAnswers(app: FastifyInstance): void {
  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const operation = (request.routeOptions.config as { operationId?: string } | undefined)?.operationId;
    // Answers outside the spec's operations (an unknown path, the docs pages) have no schema to meet.
    if (!operation) return payload;
    for (const problem of problemsOf(operation, reply.statusCode, reply.getHeader('content-type'), payload)) {
      violations.push({ operation, method: request.method, url: request.url, status: reply.statusCode, problem });
    }
    return payload;
  });
}
