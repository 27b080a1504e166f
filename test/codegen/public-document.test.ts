/**
 * The public document holds the public API only: every component of the bundled generated/openapi.json is
 * reached from an operation (so a generator makes no type that no client needs), Redocly's
 * `recommended-strict` finds nothing in it as clients receive it, and the records operators load live in a
 * document of their own (generated/operator.json), which the server's record schemas come from.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { recordNames, recordSchemas } from '@gateway/generated';
import { createConfig, lint } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { usedComponents } from '../../scripts/spec-compat.mjs';

type Document = { components: Record<string, Record<string, Record<string, unknown>>> };
const bundledPath = fileURLToPath(new URL('../../generated/openapi.json', import.meta.url));
const read = (name: string): Document =>
  JSON.parse(readFileSync(fileURLToPath(new URL(`../../generated/${name}`, import.meta.url)), 'utf8'));
const publicDocument = read('openapi.json');
const operatorDocument = read('operator.json');

describe('the bundled public document', () => {
  it('holds no component that no operation uses', () => {
    const used = usedComponents(publicDocument);
    const unused = Object.entries(publicDocument.components).flatMap(([kind, entries]) =>
      Object.keys(entries)
        .map((name) => `${kind}/${name}`)
        .filter((key) => kind !== 'securitySchemes' && !used.has(key)),
    );
    expect(unused).toEqual([]);
  });

  it("reaches the event payloads from the event stream's answer", () => {
    const used = usedComponents(publicDocument);
    expect(used).toContain('schemas/MovementEvent');
    expect(used).toContain('schemas/ResetEvent');
  });

  it('holds no operator record', () => {
    const schemas = publicDocument.components.schemas ?? {};
    expect(Object.keys(schemas).filter((name) => 'x-loaded-by' in (schemas[name] ?? {}))).toEqual([]);
    for (const name of recordNames) expect(schemas).not.toHaveProperty(name);
  });

  it("passes Redocly's recommended-strict ruleset with no exception", async () => {
    const config = await createConfig({ extends: ['recommended-strict'] });
    const problems = await lint({ ref: bundledPath, config });
    expect(problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
  }, 30_000);
});

describe('the bundled operator document', () => {
  it('holds the records the server checks, marked with the command that loads each', () => {
    const schemas = operatorDocument.components.schemas ?? {};
    expect(Object.keys(schemas).filter((name) => 'x-loaded-by' in (schemas[name] ?? {}))).toEqual([...recordNames]);
    for (const name of Object.keys(recordSchemas.components.schemas)) expect(schemas).toHaveProperty(name);
  });
});
