#!/usr/bin/env node
// Turns the hand-written spec into everything under generated/ but its hand-written src/handler-types.ts: the
// bundled public document (openapi.json), openapi-typescript types, per-operation metadata, the error catalogue,
// the client's plain calls (generate-calls.mjs), and from the operator records' document beside it
// (spec/operator/openapi.yaml) its bundle (operator.json), its types and the schemas the server checks records with.
//
//   node scripts/generate.mjs [--spec spec/openapi.yaml] [--operator-spec <spec's folder>/operator/openapi.yaml]
//                             [--out generated]
//
// Deterministic: the same spec always gives byte-identical files (check-generated.mjs relies on it).
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { createConfig, getLineColLocation, lint } from '@redocly/openapi-core';
import { CallsError, callsModule, collectCalls } from './generate-calls.mjs';
import { HAND_WRITTEN } from './hand-written.mjs';
import { resolveRef as followRef, HTTP_METHODS } from './openapi-document.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    spec: { type: 'string', default: path.join(root, 'spec/openapi.yaml') },
    'operator-spec': { type: 'string' },
    out: { type: 'string', default: path.join(root, 'generated') },
  },
});

const HEADER = `// DO NOT EDIT. Generated from spec/ by \`npm run generate\` (scripts/generate.mjs).
// Change the spec and regenerate instead.
`;

/** A spec that cannot be generated from: its message is all the user needs (no stack trace). */
class SpecError extends Error {}

/**
 * Checks the split document against the structure of OpenAPI 3.1 (Redocly's `struct` rule alone, in process):
 * a key the specification does not allow where it stands (`respones:` in an operation), a value of the wrong
 * type, a required field missing. Each problem is named with its file, line and column, before anything is
 * written; the style rules of `spec/redocly.yaml` are `npm run lint:spec`'s.
 * @see https://spec.openapis.org/oas/v3.1.0#openapi-document
 */
async function validateSpec(specPath) {
  const config = await createConfig({ rules: { struct: 'error' } });
  const problems = await lint({ ref: specPath, config });
  if (problems.length === 0) return;
  const lines = problems.map((problem) => {
    const location = problem.location[0];
    if (!location) return `  ${problem.message}`;
    const { start } = getLineColLocation(location);
    const relative = path.relative(process.cwd(), location.source.absoluteRef);
    const file = relative.startsWith('..') ? location.source.absoluteRef : relative;
    return `  ${file}:${start.line}:${start.col}: ${problem.message} (at ${location.pointer})`;
  });
  throw new SpecError(
    `the spec is not a valid OpenAPI 3.1 document; nothing was written (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n${lines.join('\n')}`,
  );
}

/** Bundles the split YAML document into one JSON document with Redocly (the tool that lints it). */
async function bundleSpec(specPath, signal) {
  const dir = mkdtempSync(path.join(tmpdir(), 'gateway-bundle-'));
  try {
    const outFile = path.join(dir, 'openapi.json');
    const redocly = path.join(root, 'node_modules/@redocly/cli/bin/cli.js');
    try {
      await promisify(execFile)(process.execPath, [redocly, 'bundle', specPath, '-o', outFile], {
        signal,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      });
    } catch (error) {
      // Redocly's own report (the file, line and a code frame) is what tells what to fix.
      throw new SpecError(
        `the spec does not bundle; nothing was written:\n${String(error.stderr || error.message)
          .split('\n')
          // Without Redocly's framed notices (the Node.js version banner): only the report.
          .filter((line) => !/[╔║╚]/.test(line))
          .join('\n')
          .trim()}`,
      );
    }
    return JSON.parse(readFileSync(outFile, 'utf8'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Follows the local `$ref`s of a node of the bundled document; fails when one leads nowhere. */
function resolveRef(doc, node) {
  const found = followRef(doc, node);
  if (found == null || typeof found.$ref === 'string') throw new Error(`unresolvable $ref ${node.$ref}`);
  return found;
}

/** Every operation of the document, in path order, with what the server and client need to know of it. */
function collectOperations(doc) {
  const operations = [];
  for (const [routePath, item] of Object.entries(doc.paths)) {
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!op) continue;
      if (!op.operationId) throw new Error(`${method.toUpperCase()} ${routePath} has no operationId`);
      const security = (op.security ?? doc.security ?? []).flatMap((req) => Object.keys(req));
      const bodyTypes = Object.keys(op.requestBody?.content ?? {});
      const responseTypes = [
        ...new Set(
          Object.entries(op.responses ?? {})
            .filter(([status]) => status.startsWith('2'))
            .flatMap(([, response]) => Object.keys(resolveRef(doc, response).content ?? {})),
        ),
      ];
      // Query parameters with a default are always present once validated (the validator fills them in).
      const queryDefaults = [...(item.parameters ?? []), ...(op.parameters ?? [])]
        .map((p) => resolveRef(doc, p))
        .filter((p) => p.in === 'query' && resolveRef(doc, p.schema ?? {}).default !== undefined)
        .map((p) => p.name);
      // Query parameters the validator coerces to integers from any text JavaScript reads as a number: the
      // server checks them as written (server/src/routes.ts). Only integers in the query are checked there.
      const numeric = [...(item.parameters ?? []), ...(op.parameters ?? [])]
        .map((p) => resolveRef(doc, p))
        .filter((p) => ['integer', 'number'].includes(resolveRef(doc, p.schema ?? {}).type));
      for (const p of numeric) {
        if (p.in !== 'query' || resolveRef(doc, p.schema).type !== 'integer') {
          throw new Error(
            `${op.operationId}: parameter ${p.name} (${p.in}) is a number the server does not check as written`,
          );
        }
      }
      const integerQueryParameters = numeric.map((p) => p.name);
      // Parameters still accepted but deprecated (credentials in the token endpoint's query string): the server
      // counts the requests that send one. A path parameter is in every request: it cannot be deprecated.
      const deprecatedParameters = [...(item.parameters ?? []), ...(op.parameters ?? [])]
        .map((p) => resolveRef(doc, p))
        .filter((p) => p.deprecated === true)
        .map((p) => ({ in: p.in, name: p.name }));
      for (const p of deprecatedParameters) {
        if (p.in !== 'query' && p.in !== 'header') {
          throw new SpecError(
            `${op.operationId}: the ${p.in} parameter ${p.name} is deprecated; only query and header parameters can be`,
          );
        }
      }
      // Answers that must not be cached: a signed-in caller's, and those that document `Cache-Control`.
      const documentsCacheControl = Object.values(op.responses ?? {}).some((response) =>
        Object.keys(resolveRef(doc, response).headers ?? {}).some((name) => name.toLowerCase() === 'cache-control'),
      );
      // Answers built from the catalogue held in memory, which say how old it is while the database is away.
      const servedFromCatalogue = Object.entries(op.responses ?? {}).some(
        ([status, response]) => status === '200' && 'Catalogue-Age' in (resolveRef(doc, response).headers ?? {}),
      );
      // A cursor page's byte budget: `x-page-bytes` of its 200 answer's page_info (CursorPageInfo).
      const answer = op.responses?.['200'] && resolveRef(doc, op.responses['200']);
      const answerSchema = answer?.content?.['application/json']?.schema;
      const pageInfo = answerSchema && resolveRef(doc, resolveRef(doc, answerSchema).properties?.page_info ?? {});
      const pageBytes = pageInfo?.['x-page-bytes'] ?? null;
      if (pageBytes !== null && !Number.isInteger(pageBytes)) {
        throw new SpecError(`${op.operationId}: x-page-bytes must be an integer`);
      }
      operations.push({
        operationId: op.operationId,
        method: method.toUpperCase(),
        path: routePath,
        security,
        deprecated: op.deprecated === true,
        successor: op['x-successor'] ?? null,
        deprecatedAt: op['x-deprecated-at'] ?? null,
        bodyContentTypes: bodyTypes,
        responseContentTypes: responseTypes,
        queryDefaults,
        integerQueryParameters,
        deprecatedParameters,
        noStore: security.length > 0 || documentsCacheControl,
        rateLimited: op['x-rate-limited'] === true,
        refusalsCounted: op['x-refusals-counted'] === true,
        servedFromCatalogue,
        pageBytes,
      });
    }
  }
  const ids = new Set(operations.map((o) => o.operationId));
  if (ids.size !== operations.length) throw new Error('operationIds are not unique');
  for (const op of operations) {
    if (op.successor && !ids.has(op.successor)) {
      throw new Error(`${op.operationId}: x-successor ${op.successor} is not an operation`);
    }
  }
  return operations;
}

/**
 * The error catalogue: the ErrorCode schema's `enum` (the codes, for every tool that reads JSON Schema) and its
 * `x-codes` (each code's `name`, `status` and `description`, in the same order). The two must list the same
 * codes in the same order, so that neither can gain a code the other lacks.
 */
function collectErrors(doc) {
  const schema = doc.components?.schemas?.ErrorCode;
  if (!Array.isArray(schema?.enum) || !Array.isArray(schema['x-codes'])) {
    throw new SpecError('components.schemas.ErrorCode needs `enum` (the codes) and `x-codes` (the catalogue)');
  }
  const entries = schema['x-codes'].map((e) => {
    if (!Number.isInteger(e.code) || !e.name || !Number.isInteger(e.status) || !e.description) {
      throw new SpecError(`ErrorCode x-codes entry ${JSON.stringify(e)} needs code, name, status and description`);
    }
    return { name: e.name, code: e.code, status: e.status, message: e.description };
  });
  const listed = JSON.stringify(schema.enum);
  const described = JSON.stringify(entries.map((e) => e.code));
  if (listed !== described) {
    throw new SpecError(
      `ErrorCode's enum ${listed} and its x-codes ${described} must list the same codes in the same order`,
    );
  }
  for (const key of ['name', 'code']) {
    if (new Set(entries.map((e) => e[key])).size !== entries.length) {
      throw new SpecError(`ErrorCode entries repeat a ${key}`);
    }
  }
  return entries;
}

function operationsModule(operations) {
  const meta = operations
    .map((o) => {
      const fields = [
        `method: ${JSON.stringify(o.method)}`,
        `path: ${JSON.stringify(o.path)}`,
        `security: ${JSON.stringify(o.security)}`,
        `deprecated: ${o.deprecated}`,
        `successor: ${JSON.stringify(o.successor)}`,
        `deprecatedAt: ${JSON.stringify(o.deprecatedAt)}`,
        `bodyContentTypes: ${JSON.stringify(o.bodyContentTypes)}`,
        `responseContentTypes: ${JSON.stringify(o.responseContentTypes)}`,
        `queryDefaults: ${JSON.stringify(o.queryDefaults)}`,
        `integerQueryParameters: ${JSON.stringify(o.integerQueryParameters)}`,
        `deprecatedParameters: ${JSON.stringify(o.deprecatedParameters)}`,
        `noStore: ${o.noStore}`,
        `rateLimited: ${o.rateLimited}`,
        `refusalsCounted: ${o.refusalsCounted}`,
        `servedFromCatalogue: ${o.servedFromCatalogue}`,
        `pageBytes: ${JSON.stringify(o.pageBytes)}`,
      ];
      return `  ${o.operationId}: { ${fields.join(', ')} },`;
    })
    .join('\n');
  return `${HEADER}
import type { OperationMeta } from './handler-types.js';
import type { operations } from './schema.js';

/** The operationId of every operation of the spec. */
export type OperationId = keyof operations;

/** Per-operation metadata, keyed by operationId. */
export const operationMeta = {
${meta}
} as const satisfies Record<OperationId, OperationMeta>;

`;
}

/** The schemas of a document marked `x-loaded-by` (records an operator command reads). */
const loadedRecords = (doc) =>
  Object.entries(doc.components?.schemas ?? {})
    .filter(([, schema]) => schema['x-loaded-by'])
    .map(([name]) => name);

/**
 * The records operators load (the operator document's schemas marked `x-loaded-by`, the command that reads
 * them) and every schema they refer to, so that the server checks them with Ajv without reading the bundled
 * document at run time.
 */
function collectRecords(doc) {
  const schemas = doc.components?.schemas ?? {};
  const names = loadedRecords(doc);
  if (names.length === 0) {
    throw new SpecError('the operator document marks no schema x-loaded-by (the feed and catalogue records)');
  }
  const reached = new Set();
  const visit = (node) => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node && typeof node === 'object') {
      const ref = typeof node.$ref === 'string' ? /^#\/components\/schemas\/([^/]+)/.exec(node.$ref) : null;
      if (node.$ref && !ref) throw new Error(`a record schema refers outside components.schemas: ${node.$ref}`);
      if (ref && !reached.has(ref[1])) {
        reached.add(ref[1]);
        visit(resolveRef(doc, { $ref: `#/components/schemas/${ref[1]}` }));
      }
      Object.values(node).forEach(visit);
    }
  };
  names.forEach((name) => {
    reached.add(name);
    visit(schemas[name]);
  });
  const closure = Object.fromEntries(
    Object.keys(schemas)
      .filter((n) => reached.has(n))
      .map((n) => [n, withoutAnnotations(schemas[n])]),
  );
  return { names, closure };
}

/** A schema without the annotations a validator never reads (the bundled document keeps them). */
function withoutAnnotations(node) {
  if (Array.isArray(node)) return node.map(withoutAnnotations);
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node)
      // A property named `description` or `examples` holds a schema (an object), never an annotation's value.
      .filter(
        ([key, value]) =>
          !(key === 'examples' && Array.isArray(value)) && !(key === 'description' && typeof value === 'string'),
      )
      .map(([key, value]) => [key, withoutAnnotations(value)]),
  );
}

function recordsModule({ names, closure }) {
  return `${HEADER}
import type { components } from './operator-schema.js';

/** The schemas of the records operators load (\`x-loaded-by\` in the spec). */
export const recordNames = ${JSON.stringify(names)} as const;
export type RecordName = (typeof recordNames)[number];

/** Those schemas and every schema they refer to, as a document in which their \`$ref\`s resolve. */
export const recordSchemas = ${JSON.stringify({ $id: 'gateway-records', components: { schemas: closure } }, null, 2)};

/** The types of the operator document's schemas (the records and the schemas they share with the API). */
export type RecordTypes = components['schemas'];
`;
}

function errorsModule(errors) {
  const rows = errors
    .map((e) => `  ${e.name}: { code: ${e.code}, status: ${e.status}, message: ${JSON.stringify(e.message)} },`)
    .join('\n');
  return `${HEADER}
/** The error catalogue of the spec (components.schemas.ErrorCode), keyed by each code's stable name. */
export const errorCatalogue = {
${rows}
} as const;

export type ErrorName = keyof typeof errorCatalogue;
export type ErrorCode = (typeof errorCatalogue)[ErrorName]['code'];
`;
}

/** A bundled document as written to generated/, marked as generated. */
const bundledText = (doc) =>
  `${JSON.stringify({ 'x-generated': 'DO NOT EDIT. Bundled from spec/ by npm run generate.', ...doc }, null, 2)}\n`;

/**
 * Writes a file only when its text changes, so that the compilers watching generated/ (`npm run dev`) rebuild
 * only what a spec edit changed.
 */
function writeIfChanged(file, text) {
  try {
    if (readFileSync(file, 'utf8') === text) return;
  } catch {}
  writeFileSync(file, text);
  changed.push(path.relative(args.out, file).split(path.sep).join('/'));
}
/** The files written (their text changed), relative to the output folder. */
const changed = [];

async function generate(specPath, operatorSpecPath, outDir) {
  // At once: the structural checks (in process), Redocly's bundles (child processes) and the loading of
  // openapi-typescript (which loads the TypeScript compiler). Nothing is written before all are done; a
  // structural problem is reported first, as it names the key and the line where a failed bundle only shows
  // a consequence.
  const abandon = new AbortController();
  const bundling = Promise.all([bundleSpec(specPath, abandon.signal), bundleSpec(operatorSpecPath, abandon.signal)]);
  const loading = import('openapi-typescript');
  bundling.catch(() => {});
  try {
    await validateSpec(specPath);
    await validateSpec(operatorSpecPath);
  } catch (error) {
    abandon.abort();
    throw error;
  }
  const [doc, operatorDoc] = await bundling;
  const { default: openapiTS, astToString } = await loading;
  const marked = loadedRecords(doc);
  if (marked.length > 0) {
    throw new SpecError(
      `the public document holds operator records (${marked.join(', ')}, marked x-loaded-by): they belong in ${path.relative(process.cwd(), operatorSpecPath)}`,
    );
  }
  const operations = collectOperations(doc);
  const errors = collectErrors(doc);
  const records = collectRecords(operatorDoc);
  const calls = collectCalls(doc);
  const typesOf = async (document) =>
    astToString(
      // openapi-typescript rewrites the document it is given (discriminators): give it a copy.
      await openapiTS(structuredClone(document), {
        alphabetize: false,
        immutable: false,
        exportType: false,
        defaultNonNullable: true,
      }),
    );
  const [types, operatorTypes] = [await typesOf(doc), await typesOf(operatorDoc)];

  mkdirSync(path.join(outDir, 'src'), { recursive: true });
  writeIfChanged(path.join(outDir, 'openapi.json'), bundledText(doc));
  writeIfChanged(path.join(outDir, 'operator.json'), bundledText(operatorDoc));
  writeIfChanged(path.join(outDir, 'src/schema.ts'), `${HEADER}\n${types}`);
  writeIfChanged(path.join(outDir, 'src/operator-schema.ts'), `${HEADER}\n${operatorTypes}`);
  writeIfChanged(path.join(outDir, 'src/operations.ts'), operationsModule(operations));
  writeIfChanged(path.join(outDir, 'src/errors.ts'), errorsModule(errors));
  writeIfChanged(path.join(outDir, 'src/records.ts'), recordsModule(records));
  writeIfChanged(path.join(outDir, 'src/calls.ts'), callsModule(HEADER, calls));
  if (path.resolve(outDir) !== path.join(root, 'generated')) {
    for (const file of HAND_WRITTEN) copyFileSync(path.join(root, 'generated', file), path.join(outDir, file));
  }
  writeIfChanged(
    path.join(outDir, 'src/index.ts'),
    `${HEADER}
export type { components, operations, paths } from './schema.js';
export * from './handler-types.js';
export * from './operations.js';
export * from './errors.js';
export * from './records.js';
export * from './calls.js';
`,
  );
  return { operations: operations.length, errors: errors.length, records: records.names.length };
}

try {
  const spec = path.resolve(args.spec);
  const operatorSpec = path.resolve(args['operator-spec'] ?? path.join(path.dirname(spec), 'operator/openapi.yaml'));
  const summary = await generate(spec, operatorSpec, path.resolve(args.out));
  console.log(
    `wrote ${path.relative(process.cwd(), path.resolve(args.out)) || '.'}/: ${summary.operations} operations, ${summary.errors} error codes, ${summary.records} record schemas (${changed.length} file${changed.length === 1 ? '' : 's'} changed${changed.length ? `: ${changed.join(', ')}` : ''})`,
  );
} catch (error) {
  if (!(error instanceof SpecError || error instanceof CallsError)) throw error;
  console.error(error.message);
  // At once: the loading of openapi-typescript begun beside the check has nothing left to do.
  process.exit(1);
}
