/**
 * The records operators load (feed lines, the catalogue) are checked against the spec's own schemas (those
 * marked `x-loaded-by`, carried into generated/src/records.ts), so nothing of their shape is written again
 * here. What a schema cannot say (rules across fields and records, the database's catalogue) the callers
 * check after it, on the values it found sound, and report in the same words (Problems).
 */
import { type RecordName, recordSchemas } from '@gateway/generated';
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
});
ajv.addSchema(recordSchemas);

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
    return this.found.map(({ path, text }) => {
      const label = labelOf(this.record, path);
      return label === '' ? text : `${label}: ${text}`;
    });
  }
}

/** Checks a record against its schema in the spec (filling in the schema's defaults). */
export function checkRecord(name: RecordName, record: unknown): Problems {
  const validate = validatorOf(name);
  return new Problems(record, validate(record) ? [] : wordErrors(validate.errors ?? [], REFUSALS));
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
