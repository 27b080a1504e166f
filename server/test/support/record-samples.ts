/**
 * A record with every field of its schema, optional ones included, made by walking the spec's record schema
 * (@gateway/generated's recordSchemas) rather than by listing fields: a field added to the spec is in the
 * sample without a change here. Values come from the spec's examples (the record's own first, so that they
 * fit together; then the field's schema), its `const` or its enumeration; a field the spec gives no value
 * for fails, naming it.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { type RecordName, recordSchemas } from '@gateway/generated';

interface JsonSchema {
  $ref?: string;
  const?: unknown;
  enum?: unknown[];
  examples?: unknown[];
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  allOf?: JsonSchema[];
}

const schemas = recordSchemas.components.schemas as Record<string, JsonSchema>;
/**
 * The bundled operator document (generated/operator.json, beside the public openapi.json that the package
 * exports) keeps the examples that the record schemas leave out.
 */
const bundled = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@gateway/generated/openapi.json')),
  'operator.json',
);
const examples = (JSON.parse(readFileSync(bundled, 'utf8')) as { components: { schemas: Record<string, JsonSchema> } })
  .components.schemas;

const nameOf = (ref: string) => ref.replace(/^#\/components\/schemas\//, '');

/** The fields of a record schema, in its order. */
export function fieldsOf(name: RecordName): string[] {
  return Object.keys(schemas[name]?.properties ?? {});
}

/** A value for `schema` at `path`, preferring `example` (the enclosing record's example value). */
function sample(schema: JsonSchema, path: string, example: unknown): unknown {
  if (example !== undefined) return example;
  if (schema.const !== undefined) return schema.const;
  if (schema.examples?.[0] !== undefined) return schema.examples[0];
  if (schema.$ref) {
    const name = nameOf(schema.$ref);
    const target = schemas[name];
    if (!target) throw new Error(`${path}: ${schema.$ref} is not in the record schemas`);
    return sample({ ...target, examples: examples[name]?.examples }, path, undefined);
  }
  if (schema.enum?.[0] !== undefined) return schema.enum[0];
  if (schema.properties) {
    return Object.fromEntries(
      Object.entries(schema.properties).map(([key, field]) => [key, sample(field, `${path}.${key}`, undefined)]),
    );
  }
  if (schema.items) return [sample(schema.items, `${path}[0]`, undefined)];
  throw new Error(`${path}: the spec gives no example, const or enumeration to make a sample of`);
}

/**
 * A record of `name` with every field of its schema: the record's example in the bundled operator document, completed
 * from each missing field's schema, then `overrides` (whose account it is).
 */
export function sampleRecord(name: RecordName, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const schema = schemas[name];
  if (!schema?.properties) throw new Error(`${name} is not an object schema of the records`);
  const example = (examples[name]?.examples?.[0] ?? {}) as Record<string, unknown>;
  const record = Object.fromEntries(
    Object.entries(schema.properties).map(([key, field]) => [key, sample(field, `${name}.${key}`, example[key])]),
  );
  return { ...record, ...overrides };
}
