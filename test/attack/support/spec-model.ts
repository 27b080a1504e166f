/** The operations of the bundled spec as the fuzzer needs them: parameters, body, documented responses. */
import { spec } from '../../src/spec.js';

export type Json = Record<string, unknown>;

export interface ParamModel {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  /** The schema with every `$ref` followed (siblings of a `$ref` kept). */
  schema: Json;
  /** The name of the component schema the parameter's schema refers to (CurrencyId, Cursor…), if any. */
  schemaName: string | null;
  examples: unknown[];
}

export interface BodyModel {
  required: boolean;
  contentTypes: string[];
  /** Each alternative (a `oneOf` branch, or the schema itself): its properties and required names. */
  variants: { properties: Record<string, Json>; required: string[] }[];
  examples: unknown[];
}

export interface OperationModel {
  id: string;
  method: string;
  path: string;
  params: ParamModel[];
  body: BodyModel | null;
  secured: boolean;
  deprecated: boolean;
  responses: Record<string, Json>;
}

function follow(node: unknown): { node: Json; name: string | null } {
  let current = (node ?? {}) as Json;
  let name: string | null = null;
  for (let hops = 0; typeof current.$ref === 'string' && hops < 20; hops++) {
    const ref = current.$ref as string;
    name ??= ref.split('/').at(-1) ?? null;
    const target = ref
      .slice(2)
      .split('/')
      .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<Json>((acc, key) => (acc?.[key] ?? {}) as Json, spec as Json);
    const { $ref: _ignored, ...siblings } = current;
    current = { ...target, ...siblings };
  }
  return { node: current, name };
}

export const resolve = (node: unknown): Json => follow(node).node;

/** Collects the alternatives of an object schema (oneOf/anyOf branches, allOf merged). */
function variantsOf(schema: Json): BodyModel['variants'] {
  const own = resolve(schema);
  const branches = (own.oneOf ?? own.anyOf) as unknown[] | undefined;
  if (branches) return branches.flatMap((b) => variantsOf(resolve(b)));
  const properties: Record<string, Json> = {};
  const required: string[] = [];
  const parts = [own, ...((own.allOf as unknown[] | undefined) ?? []).map(resolve)];
  for (const part of parts) {
    for (const [key, value] of Object.entries((part.properties as Record<string, unknown>) ?? {})) {
      properties[key] = resolve(value);
    }
    required.push(...((part.required as string[] | undefined) ?? []));
  }
  return [{ properties, required }];
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export function operations(): OperationModel[] {
  const out: OperationModel[] = [];
  for (const [path, item] of Object.entries(spec.paths)) {
    const shared = ((item as Json).parameters as unknown[] | undefined) ?? [];
    for (const method of METHODS) {
      const operation = (item as Json)[method] as Json | undefined;
      if (!operation?.operationId) continue;
      const params = [...shared, ...((operation.parameters as unknown[] | undefined) ?? [])].map((raw) => {
        const p = resolve(raw);
        const { node: schema, name } = follow(p.schema);
        const examples = [
          p.example,
          ...Object.values((p.examples as Record<string, Json> | undefined) ?? {}).map((e) => e.value),
          ...((schema.examples as unknown[] | undefined) ?? []),
          schema.default,
        ].filter((e) => e !== undefined);
        return {
          name: String(p.name),
          in: p.in as ParamModel['in'],
          required: p.required === true,
          schema,
          schemaName: name,
          examples,
        };
      });
      let body: BodyModel | null = null;
      if (operation.requestBody) {
        const rb = resolve(operation.requestBody);
        const content = (rb.content ?? {}) as Record<string, Json>;
        const first = Object.values(content)[0];
        body = {
          required: rb.required === true,
          contentTypes: Object.keys(content),
          variants: first ? variantsOf(first.schema as Json) : [],
          examples: Object.values(content).flatMap((c) =>
            Object.values((c.examples as Record<string, Json> | undefined) ?? {}).map((e) => e.value),
          ),
        };
      }
      const security = (operation.security ?? spec.security ?? []) as unknown[];
      out.push({
        id: String(operation.operationId),
        method: method.toUpperCase(),
        path,
        params,
        body,
        secured: security.some((s) => Object.keys(s as Json).length > 0),
        deprecated: operation.deprecated === true,
        responses: operation.responses as Record<string, Json>,
      });
    }
  }
  return out;
}

/** The operations whose template matches a raw request path (segments as sent, a parameter any non-empty segment). */
export function operationsAt(ops: readonly OperationModel[], rawPath: string): OperationModel[] {
  const segments = rawPath.split('/');
  return ops.filter((op) => {
    const template = op.path.split('/');
    return (
      template.length === segments.length &&
      template.every((t, i) => (/^\{[^}]+\}$/.test(t) ? (segments[i] ?? '') !== '' : t === segments[i]))
    );
  });
}
