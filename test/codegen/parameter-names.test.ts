/**
 * Parameter names as generators read them: many (openapi-typescript-codegen, orval's and kubb's argument
 * names) camelCase a parameter's name after dropping what is not a letter or digit, so that `Last-Event-ID`
 * and `last_event_id` become one `lastEventId`. Two parameters of one operation that collapse so must carry
 * distinct client names (`x-ms-client-name`, AutoRest's and TypeSpec's word for it).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

type Parameter = { name: string; in: string; 'x-ms-client-name'?: string };
type Operation = { operationId: string; parameters?: unknown[] };
const bundled = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../generated/openapi.json', import.meta.url)), 'utf8'),
);

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** A parameter, its local `$ref` followed. */
function resolveRef(doc: unknown, node: unknown): unknown {
  const ref = (node as { $ref?: string }).$ref;
  if (typeof ref !== 'string') return node;
  return ref
    .slice(2)
    .split('/')
    .reduce<unknown>((at, key) => (at as Record<string, unknown>)[key], doc);
}

/** A name as a camelCasing generator makes it an argument: `Last-Event-ID` and `last_event_id` -> `lasteventid`. */
const collapsed = (name: string) => name.replace(/[^A-Za-z0-9]/g, '').toLowerCase();

/** Per operation, the parameters whose names collapse to one and that no client name tells apart. */
function collisions(doc: { paths: Record<string, Record<string, unknown>> }): string[] {
  const found: string[] = [];
  for (const item of Object.values(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method] as Operation | undefined;
      if (!op) continue;
      const parameters = [...((item.parameters as unknown[]) ?? []), ...(op.parameters ?? [])].map(
        (p) => resolveRef(doc, p) as Parameter,
      );
      const byName = new Map<string, Parameter[]>();
      for (const p of parameters) byName.set(collapsed(p.name), [...(byName.get(collapsed(p.name)) ?? []), p]);
      for (const group of byName.values()) {
        const clientNames = group.map((p) => p['x-ms-client-name'] ?? p.name);
        if (group.length > 1 && new Set(clientNames.map(collapsed)).size < group.length) {
          found.push(`${op.operationId}: ${group.map((p) => `${p.name} (${p.in})`).join(', ')}`);
        }
      }
    }
  }
  return found;
}

describe('parameter names in generated clients', () => {
  it('no two parameters of an operation become one argument when camelCased', () => {
    expect(collisions(bundled)).toEqual([]);
  });

  it('finds the collision of Last-Event-ID and last_event_id without their client names (the control)', () => {
    const doc = structuredClone(bundled);
    for (const p of doc.paths['/v1/events'].get.parameters) delete p['x-ms-client-name'];
    expect(collisions(doc)).toEqual(['listEvents: Last-Event-ID (header), last_event_id (query)']);
  });
});
