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
  /** Said by another problem's line (a missing key that an unknown key misspells): checked, not printed. */
  silent?: boolean;
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
export function wordErrors(errors: readonly ErrorObject[], words: RecordWords): Problem[] {
  const { refusals } = words;
  const problems: Problem[] = [];
  const unknownFields = new Map<string, Problem & { names: string[] }>();
  // A misspelled required key is said once, as the unknown key and its suggestion, not also as missing.
  const suggested = new Set<string>();
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
        const name = String(params.additionalProperty);
        const known = Object.keys((error.parentSchema as { properties?: object } | undefined)?.properties ?? {});
        const nearest = nearestKey(name, known, error.data);
        if (nearest !== undefined) suggested.add(JSON.stringify([...path, nearest]));
        entry.names.push(`${name.slice(0, 80)}${nearest === undefined ? '' : ` (did you mean ${nearest}?)`}`);
        entry.text = words.unknown(entry.names);
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
  return problems
    .filter(({ path, text }) => {
      const key = JSON.stringify([path, text]);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .map((p) => (p.text === 'is required' && suggested.has(JSON.stringify(p.path)) ? { ...p, silent: true } : p));
}

/** How the problems of a record are worded: its formats' refusals, and its unknown keys (each with a suggestion). */
export interface RecordWords {
  refusals: Readonly<Record<string, string>>;
  unknown: (names: string[]) => string;
}

/**
 * The known key an unknown one most likely misspells: the nearest by edit distance, within a third of its
 * length (at least 1, at most 3), preferring one the object lacks (`default_plaform` for `default_platform`).
 */
export function nearestKey(name: string, known: readonly string[], object: unknown): string | undefined {
  const given = typeof object === 'object' && object !== null ? object : {};
  const most = Math.min(3, Math.max(1, Math.floor(name.length / 3)));
  let best: { key: string; cost: number } | undefined;
  for (const key of known) {
    const cost = editDistance(name.toLowerCase(), key.toLowerCase()) - (key in given ? 0 : 0.5);
    if (cost <= most && (best === undefined || cost < best.cost)) best = { key, cost };
  }
  return best?.key;
}

/** Levenshtein distance (insertions, deletions and substitutions each cost 1); names are short. */
function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 3 || a.length > 80) return Number.POSITIVE_INFINITY;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      row.push(Math.min((previous[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, substitution));
    }
    previous = row;
  }
  return previous[b.length] ?? 0;
}

/** What a refused key breaks, in few words. */
function keyRule(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'pattern') return `it must match ${String(params.pattern)}`;
  if (error.keyword === 'maxLength') return `it must have at most ${params.limit} characters`;
  return error.message ?? error.keyword;
}
