/**
 * The records operators load (feed lines, the catalogue) are checked against the spec's own schemas (those
 * marked `x-loaded-by`, carried into generated/src/records.ts), so nothing of their shape is written again
 * here. What a schema cannot say (rules across fields and records, the database's catalogue) the callers
 * check after it, on the values it found sound, and report in the same words (Problems).
 */
import { type RecordName, recordNames, recordSchemas } from '@gateway/generated';
import { Ajv, type ValidateFunction } from 'ajv';
import { type DecimalText, fractionDigits, parseDecimal } from '../lib/decimal.js';
import { normaliseTimestamp } from '../lib/time.js';
import { labelOf, type Problem, type RecordPath, wordErrors } from './record-problems.js';

/**
 * The formats the record schemas use, each checked by the function that later reads the value, and the
 * words of its refusal. `decimal` checks text; a JSON number is checked when read (readDecimal).
 */
const FORMATS = {
  decimal: {
    test: (value: string) => parseDecimal(value) !== null,
    refusal: 'must be a non-negative decimal (prefer a string for exactness)',
  },
  'date-time': {
    test: (value: string) => normaliseTimestamp(value) !== null,
    refusal: 'must be an ISO 8601 date-time with a time zone',
  },
} as const;
const REFUSALS = Object.fromEntries(Object.entries(FORMATS).map(([name, f]) => [name, f.refusal]));
const UNKNOWN_KEYS = (names: string[]) => `unknown key${names.length > 1 ? 's' : ''} ${names.join(', ')}`;
const UNKNOWN_FIELDS = (names: string[]) => `unknown field(s): ${names.join(', ')}`;

const ajv = new Ajv({
  allErrors: true,
  verbose: true,
  // The catalogue's optional fees default to 0 in the spec: the schema fills them in.
  useDefaults: true,
  allowUnionTypes: true,
  // A shared bound (ExchangeCurrencies: only `maxItems`) is a schema of its own, without the type of the
  // list that refers to it; the list states its type.
  strictTypes: false,
  formats: Object.fromEntries(Object.entries(FORMATS).map(([name, f]) => [name, f.test])),
  // The document's schemas sit under OpenAPI's `components`, where their `$ref`s point; `x-loaded-by`
  // marks the records. Neither is a check, but strict mode refuses keywords it does not know.
  keywords: ['components', 'x-loaded-by'],
  // The schemas are the bundled spec's, which the build lints and the suite compiles here: checking them
  // against JSON Schema's meta-schema again at every start cost each command about 25 ms (its compile).
  validateSchema: false,
});
ajv.addSchema(closed(recordSchemas));

/**
 * The record schemas, with a record the spec leaves open (the catalogue) closed: each object schema it
 * refers to refuses a key it does not name, as the feed records' schemas already say in the spec
 * (`additionalProperties: false`), so that an operator's typo (`default_plaform`, `colour: orange`) is
 * refused, named and matched to the nearest known key rather than ignored. An object that states
 * `additionalProperties` (a map, such as a currency's platforms) keeps its own rule.
 */
function closed(document: typeof recordSchemas): typeof recordSchemas {
  const schemas: Record<string, object> = document.components.schemas;
  const reached = new Set<string>();
  const visit = (node: unknown): void => {
    if (typeof node !== 'object' || node === null) return;
    const ref = (node as { $ref?: unknown }).$ref;
    const name = typeof ref === 'string' ? ref.split('/').pop() : undefined;
    if (name !== undefined && !reached.has(name)) {
      reached.add(name);
      visit(schemas[name]);
    }
    for (const value of Object.values(node)) visit(value);
  };
  for (const name of recordNames) {
    if (!('additionalProperties' in (schemas[name] ?? {}))) visit({ $ref: name });
  }
  const close = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(close);
    if (typeof node !== 'object' || node === null) return node;
    const copy: Record<string, unknown> = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, close(v)]));
    if ('properties' in copy && !('additionalProperties' in copy)) copy.additionalProperties = false;
    return copy;
  };
  const names = Object.keys(schemas);
  const closedSchemas = Object.fromEntries(names.map((n) => [n, reached.has(n) ? close(schemas[n]) : schemas[n]]));
  return { ...document, components: { schemas: closedSchemas } } as typeof recordSchemas;
}

/** The problems of a record: the schema's first, then those its caller adds. */
export class Problems {
  private readonly found: Problem[];

  constructor(
    readonly record: unknown,
    schemaProblems: Problem[],
  ) {
    this.found = [...schemaProblems];
  }

  add(path: RecordPath, text: string): void {
    this.found.push({ path, text });
  }

  /** Whether the schema found nothing wrong at `path` or below it: only then do rules of code read it. */
  sound(path: RecordPath): boolean {
    return !this.found.some((p) => path.every((key, i) => p.path[i] === key));
  }

  get any(): boolean {
    return this.found.length > 0;
  }

  /** One line a problem: `label: text`. */
  lines(): string[] {
    return this.found
      .filter((p) => !p.silent)
      .map(({ path, text }) => {
        const label = labelOf(this.record, path);
        return label === '' ? text : `${label}: ${text}`;
      });
  }
}

/** Checks a record against its schema in the spec (filling in the schema's defaults). */
export function checkRecord(name: RecordName, record: unknown): Problems {
  const validate = validatorOf(name);
  // The catalogue is a YAML file of keys; a feed line, a JSON object of fields.
  const words = { refusals: REFUSALS, unknown: name === 'Catalogue' ? UNKNOWN_KEYS : UNKNOWN_FIELDS };
  return new Problems(record, validate(record) ? [] : wordErrors(validate.errors ?? [], words));
}

/** Each record's compiled check, looked up once (a lookup by reference resolves the reference each time). */
const validators = new Map<RecordName, ValidateFunction>();
function validatorOf(name: RecordName): ValidateFunction {
  let validate = validators.get(name);
  if (!validate) {
    validate = ajv.getSchema(`${recordSchemas.$id}#/components/schemas/${name}`);
    if (!validate) throw new Error(`the spec has no record schema ${name}`);
    validators.set(name, validate);
  }
  return validate;
}

/**
 * The exact decimal of a sound amount, refusing more fractional digits than `decimals`. A JSON number is
 * read as its shortest text, which the schema cannot see: `1e-7` is refused here.
 */
export function readDecimal(problems: Problems, path: RecordPath, value: unknown, decimals: number): DecimalText {
  const exact = problems.sound(path) ? parseDecimal(value) : null;
  if (exact === null) {
    if (problems.sound(path)) problems.add(path, FORMATS.decimal.refusal);
    return '0' as DecimalText;
  }
  if (fractionDigits(exact) > decimals) problems.add(path, `${exact} has more than ${decimals} decimals`);
  return exact;
}
