/**
 * What is wrong with a record (a feed line, the catalogue), in words an operator reads: each problem names
 * the entry and the field, `currencies[0] (BNB).platforms.BSC.deposit.min: …`, whether the spec's schema
 * found it or a rule of code that the schema cannot state.
 */
import type { ErrorObject } from 'ajv';

/** Where a problem is: keys and list indexes from the record's root. */
export type RecordPath = readonly (string | number)[];
export interface Problem {
  path: RecordPath;
  text: string;
}

/** The fields that name a list entry in messages (`platforms[0] (BSC)`, `staking[0] (USDT)`). */
const NAME_FIELDS: readonly (string | number)[] = ['id', 'currency'];

/** `currencies[0] (BNB).platforms.BSC.deposit.min`; an entry is not named when the problem is its name. */
export function labelOf(record: unknown, path: RecordPath): string {
  let label = '';
  let node = record;
  path.forEach((key, i) => {
    node = typeof node === 'object' && node !== null ? (node as Record<string | number, unknown>)[key] : undefined;
    if (typeof key === 'number') {
      label += `[${key}]`;
      const name = typeof node === 'object' && node !== null ? NAME_FIELDS.map((f) => (node as never)[f]) : [];
      const shown = name.find((n) => typeof n === 'string');
      const next = path[i + 1];
      if (shown !== undefined && next !== undefined && !NAME_FIELDS.includes(next)) label += ` (${shown})`;
    } else {
      label += label === '' ? key : `.${key}`;
    }
  });
  return label;
}

const TYPE_WORDS: Record<string, string> = {
  string: 'text',
  number: 'a number',
  integer: 'an integer',
  boolean: 'true or false',
  object: 'a mapping',
  array: 'a list',
};

/** The path of a JSON pointer (`/currencies/0/id`); list indexes are numbers. */
function pathOf(pointer: string): (string | number)[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

/**
 * Ajv's errors (run with `allErrors` and `verbose`) in the operator's words. A value whose schema has a
 * format is refused in that format's words (`refusals`), whichever keyword caught it: `-1` and `true` are
 * both "not a non-negative decimal".
 */
export function wordErrors(errors: readonly ErrorObject[], refusals: Readonly<Record<string, string>>): Problem[] {
  const problems: Problem[] = [];
  const unknownFields = new Map<string, Problem & { names: string[] }>();
  for (const error of errors) {
    const path = pathOf(error.instancePath);
    const params = error.params as Record<string, unknown>;
    // A key refused by `propertyNames` is named by its own error, which comes first.
    if (error.keyword === 'propertyNames') continue;
    const key = (error as { propertyName?: string }).propertyName;
    if (key !== undefined) {
      problems.push({ path, text: `key "${key.slice(0, 80)}" is not allowed (${keyRule(error)})` });
      continue;
    }
    const format = (error.parentSchema as { format?: string } | undefined)?.format;
    if (format && refusals[format] && ['type', 'format', 'pattern', 'minimum'].includes(error.keyword)) {
      problems.push({ path, text: refusals[format] });
      continue;
    }
    switch (error.keyword) {
      case 'required':
        problems.push({ path: [...path, String(params.missingProperty)], text: 'is required' });
        break;
      case 'additionalProperties': {
        const entry = unknownFields.get(error.instancePath) ?? { path, text: '', names: [] };
        entry.names.push(String(params.additionalProperty));
        entry.text = `unknown field(s): ${entry.names.join(', ')}`;
        if (!unknownFields.has(error.instancePath)) problems.push(entry);
        unknownFields.set(error.instancePath, entry);
        break;
      }
      case 'type':
        problems.push({
          path,
          text: `must be ${[params.type]
            .flat()
            .map((t) => TYPE_WORDS[String(t)] ?? t)
            .join(' or ')}`,
        });
        break;
      case 'enum':
        problems.push({ path, text: `must be one of ${(params.allowedValues as unknown[]).join(', ')}` });
        break;
      case 'const':
        problems.push({ path, text: `must be ${String(params.allowedValue)}` });
        break;
      case 'pattern':
        problems.push({ path, text: `"${String(error.data).slice(0, 80)}" does not match ${String(params.pattern)}` });
        break;
      case 'minLength':
        problems.push({
          path,
          text: params.limit === 1 ? 'is required' : `must have at least ${params.limit} characters`,
        });
        break;
      case 'maxLength':
        problems.push({ path, text: `must have at most ${params.limit} characters` });
        break;
      case 'minProperties':
        problems.push({ path, text: `must have at least ${params.limit} ${params.limit === 1 ? 'entry' : 'entries'}` });
        break;
      case 'maxProperties':
        problems.push({ path, text: `must have at most ${params.limit} ${params.limit === 1 ? 'entry' : 'entries'}` });
        break;
      case 'maxItems':
        problems.push({ path, text: `must have at most ${params.limit} ${params.limit === 1 ? 'item' : 'items'}` });
        break;
      default:
        problems.push({ path, text: error.message ?? `fails ${error.keyword}` });
    }
  }
  // A value checked by two schemas (a feed's transaction is also a MovementTransaction) is refused once.
  const seen = new Set<string>();
  return problems.filter(({ path, text }) => {
    const key = JSON.stringify([path, text]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** What a refused key breaks, in few words. */
function keyRule(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'pattern') return `it must match ${String(params.pattern)}`;
  if (error.keyword === 'maxLength') return `it must have at most ${params.limit} characters`;
  return error.message ?? error.keyword;
}
