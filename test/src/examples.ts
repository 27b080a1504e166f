/**
 * The spec's example requests: for each operation, its path filled with the path parameters' examples and
 * its query string with the query parameters' examples, and the status its success response documents.
 * Read from the bundled spec, never listed by hand, so a new example is walked as soon as it is written.
 * A parameter with several named examples gives a request for each. Operations that take a body (the token
 * endpoint) are left out: a password example is signed for one moment and a refresh token belongs to one
 * server, so neither can be answered elsewhere.
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
 * A parameter's own examples (`example`, or every one of `examples`); a required parameter without one takes
 * its schema's first. An optional parameter without an example of its own has none (it is left out).
 */
function examplesOf(parameter: Parameter): unknown[] {
  if (parameter.example !== undefined) return [parameter.example];
  const named = Object.values(parameter.examples ?? {})
    .map((example) => example.value)
    .filter((value) => value !== undefined);
  if (named.length > 0) return named;
  if (!parameter.required) return [];
  const fromSchema = parameter.schema?.example ?? parameter.schema?.examples?.[0];
  if (fromSchema === undefined) throw new Error(`required parameter ${parameter.name} has no example`);
  return [fromSchema];
}

/** The URL of `template` with each parameter's chosen value. */
function urlOf(template: string, parameters: readonly Parameter[], chosen: ReadonlyMap<Parameter, unknown>): string {
  let path = template;
  const query = new URLSearchParams();
  for (const parameter of parameters) {
    if (!chosen.has(parameter)) continue;
    const value = String(chosen.get(parameter));
    if (parameter.in === 'path') path = path.replace(`{${parameter.name}}`, encodeURIComponent(value));
    if (parameter.in === 'query') query.set(parameter.name, value);
  }
  const search = query.toString();
  return search ? `${path}?${search}` : path;
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
  return withoutBody.flatMap((operationId) => {
    const meta = operationMeta[operationId];
    const operation = operationOf(operationId);
    const parameters = ((operation.parameters ?? []) as (Parameter | { $ref: string })[]).map((p) =>
      resolve<Parameter>(p),
    );
    const successes = Object.keys(operation.responses as object).filter((status) => /^2\d\d$/.test(status));
    if (successes.length !== 1) throw new Error(`${operationId} documents ${successes.length} success statuses`);
    // Every parameter at its first example; then, one parameter at a time, each of its other examples.
    const examples = new Map(parameters.map((p) => [p, examplesOf(p)] as const));
    const first = new Map([...examples].filter(([, values]) => values.length > 0).map(([p, values]) => [p, values[0]]));
    const variants = [first];
    for (const [parameter, values] of examples) {
      for (const value of values.slice(1)) variants.push(new Map([...first, [parameter, value]]));
    }
    return variants.map((chosen) => ({
      operationId,
      method: meta.method,
      url: urlOf(meta.path, parameters, chosen),
      status: Number(successes[0]),
      protected: meta.security.length > 0,
    }));
  });
}
