/**
 * The spec's example requests: for each operation, its path filled with the path parameters' examples and
 * its query string with the query parameters' examples, and the status its success response documents.
 * Read from the bundled spec, never listed by hand, so a new example is walked as soon as it is written.
 * Operations that take a body (the token endpoint) are left out: a password example is signed for one
 * moment and a refresh token belongs to one server, so neither can be answered elsewhere.
 */
import { type OperationId, operationMeta } from '@gateway/generated';
import { spec } from './spec.js';

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  example?: unknown;
  examples?: Record<string, { value?: unknown }>;
  schema?: { examples?: unknown[]; example?: unknown };
}

export interface ExampleRequest {
  operationId: OperationId;
  method: string;
  /** Path and query string. */
  url: string;
  /** The success status the spec documents for the operation. */
  status: number;
  protected: boolean;
}

const resolve = <T>(node: T | { $ref: string }): T => {
  let current: unknown = node;
  while (typeof (current as { $ref?: unknown }).$ref === 'string') {
    current = (current as { $ref: string }).$ref
      .slice(2)
      .split('/')
      .reduce<Record<string, unknown>>((acc, key) => acc[key] as Record<string, unknown>, spec);
  }
  return current as T;
};

/**
 * A parameter's own example (`example`, else the first of `examples`); a required parameter without one
 * takes its schema's. An optional parameter without an example of its own is left out.
 */
function exampleOf(parameter: Parameter): unknown {
  if (parameter.example !== undefined) return parameter.example;
  const named = Object.values(parameter.examples ?? {})[0];
  if (named?.value !== undefined) return named.value;
  if (!parameter.required) return undefined;
  const fromSchema = parameter.schema?.example ?? parameter.schema?.examples?.[0];
  if (fromSchema === undefined) throw new Error(`required parameter ${parameter.name} has no example`);
  return fromSchema;
}

const operationOf = (operationId: OperationId) => {
  const meta = operationMeta[operationId];
  const operation = (spec.paths[meta.path] as Record<string, Record<string, unknown>>)[meta.method.toLowerCase()];
  if (!operation) throw new Error(`${operationId} is not in the bundled spec`);
  return operation;
};

export function exampleRequests(): ExampleRequest[] {
  const withoutBody = (Object.keys(operationMeta) as OperationId[]).filter(
    (operationId) => operationOf(operationId).requestBody === undefined,
  );
  return withoutBody.map((operationId) => {
    const meta = operationMeta[operationId];
    const operation = operationOf(operationId);
    const parameters = ((operation.parameters ?? []) as (Parameter | { $ref: string })[]).map((p) =>
      resolve<Parameter>(p),
    );
    let path: string = meta.path;
    const query = new URLSearchParams();
    for (const parameter of parameters) {
      const value = exampleOf(parameter);
      if (value === undefined) continue;
      if (parameter.in === 'path') path = path.replace(`{${parameter.name}}`, encodeURIComponent(String(value)));
      if (parameter.in === 'query') query.set(parameter.name, String(value));
    }
    const successes = Object.keys(operation.responses as object).filter((status) => /^2\d\d$/.test(status));
    if (successes.length !== 1) throw new Error(`${operationId} documents ${successes.length} success statuses`);
    const search = query.toString();
    return {
      operationId,
      method: meta.method,
      url: search ? `${path}?${search}` : path,
      status: Number(successes[0]),
      protected: meta.security.length > 0,
    };
  });
}
