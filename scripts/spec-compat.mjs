#!/usr/bin/env node
/**
 * The breaking-change guard (`npm run spec:compat`): compares the bundled document (generated/openapi.json) with
 * the last released one (spec/released/<version>.json, written by `npm run release`) and fails on a breaking
 * change, unless the major version was raised. Non-breaking changes are listed.
 *
 * The structural diff (what changed where, with $refs followed into every operation that uses them) is
 * api-smart-diff's. Its own breaking/non-breaking verdict is not used for the cases below, because it is not
 * stable where one schema is reached from requests and responses alike (and it calls a widened response type, a
 * changed response pattern or a removed response enum value non-breaking). Our rules, by where a change is:
 * - an operation or path removed, an operationId changed, a response status removed, a media type removed: breaking;
 * - request side (parameters, body): a parameter removed or made required, a new required parameter or body field,
 *   a narrowed type, an added or changed pattern/format/const/multipleOf, a lowered maximum or raised minimum
 *   (length, items and properties too), an enum value removed: breaking;
 * - response side: a field removed or made optional, a widened type, a removed or changed pattern/format/const, a
 *   raised or removed maximum, a lowered or removed minimum, an enum value added or removed: breaking;
 * - error codes (ours entirely): the `ErrorCode` catalogue (components.schemas.ErrorCode: its `x-codes`, each
 *   code's name and status; up to 1.1.0 a oneOf of const codes with x-status) loses a code or changes a code's status or name; an operation's response stops documenting (in
 *   its examples) an error code it documented: breaking. Codes added: non-breaking.
 * - a parameter deprecated (still accepted): non-breaking, listed;
 * - components: a change to a component is judged where operations use it; a component that no operation used
 *   (neither directly nor through another component) removed is non-breaking, said so with the reason: no request
 *   or response changes, only the named type a generator made of it goes;
 * - annotations of a text's content (`contentMediaType`, `contentSchema`: JSON Schema checks neither) added to a
 *   response: non-breaking, they describe what the text already held. The library does not walk `contentSchema`:
 *   it is read as a field of the text named `(content: <media type>)` before diffing, so that a change within
 *   it (an event's `data` losing a field) is judged like any field of the response.
 * Anything else keeps api-smart-diff's verdict; text-only changes (descriptions, examples) are counted, not listed.
 * A shared bound (an `allOf` member that holds only bounds and annotations, such as `ExchangeCurrencies`'s
 * maxItems) is read as written inline before diffing: the library does not merge `allOf`, and would see the
 * schema holding it lose its type and items, where only a bound was added.
 *
 * Usage: node scripts/spec-compat.mjs [--base <released.json>] [--head <openapi.json>] [--verbose] [--json]
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { apiCompare } from 'api-smart-diff';
import { HTTP_METHODS, pointer, resolveRef as resolve } from './openapi-document.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
export const releasedDir = path.join(root, 'spec/released');
/** The packages that carry the API's version (with spec/openapi.yaml's info.version). */
export const PACKAGES = ['client', 'server', 'ledger', 'generated'];

const METHODS = new Set(HTTP_METHODS);
const UPPER = new Set(['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties']);
const LOWER = new Set(['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties']);
const CONSTRAINTS = new Set(['pattern', 'format', 'const', 'multipleOf']);
const TEXT = new Set([
  'description',
  'summary',
  'title',
  'example',
  'examples',
  'externalDocs',
  'tags',
  'x-codeSamples',
  'deprecated',
]);

/** JSON Schema's annotations of what a string holds (2020-12, section 8): descriptions, never checks. */
const CONTENT_ANNOTATIONS = new Set(['contentMediaType', 'contentEncoding']);
/** The field a `contentSchema` is read as (see exposeContentSchemas). */
const contentField = (schema) => `(content: ${schema.contentMediaType ?? 'text'})`;
const isContentField = (name) => /^\(content: .*\)$/.test(name);

/**
 * `doc` with each `contentSchema` read as a field of its text (`properties['(content: <media type>)']`), where
 * the library walks and diffs it: a string has no properties, so the field names nothing else.
 */
export function exposeContentSchemas(doc) {
  const visit = (node) => {
    if (Array.isArray(node)) return node.map(visit);
    if (node === null || typeof node !== 'object') return node;
    const out = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, visit(v)]));
    if (out.contentSchema && typeof out.contentSchema === 'object') {
      const { contentSchema, ...rest } = out;
      return { ...rest, properties: { ...rest.properties, [contentField(out)]: contentSchema } };
    }
    return out;
  };
  return visit(doc);
}

/** Keywords a shared bound may hold: bounds, and words for people. */
const BOUND_ONLY = new Set([...UPPER, ...LOWER, 'title', 'description', 'examples', 'example']);

/**
 * `doc` with each shared bound written inline: an `allOf` member (after its `$ref`) holding only BOUND_ONLY
 * keywords, none of whose bounds the schema states itself, becomes those bounds on the schema. Other
 * `allOf` members are left as they are.
 */
export function inlineSharedBounds(doc) {
  const visit = (node) => {
    if (Array.isArray(node)) return node.map(visit);
    if (node === null || typeof node !== 'object') return node;
    const out = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, visit(v)]));
    if (!Array.isArray(out.allOf)) return out;
    const kept = [];
    for (const member of out.allOf) {
      const bound = resolve(doc, member);
      const keys = bound && typeof bound === 'object' ? Object.keys(bound) : [];
      const bounds = keys.filter((k) => UPPER.has(k) || LOWER.has(k));
      if (keys.length === 0 || !keys.every((k) => BOUND_ONLY.has(k)) || bounds.some((k) => k in out)) {
        kept.push(member);
        continue;
      }
      for (const k of bounds) out[k] = bound[k];
    }
    if (kept.length > 0) out.allOf = kept;
    else delete out.allOf;
    return out;
  };
  return visit(doc);
}

/** Versions of the released documents, in ascending order. */
export function releasedVersions(dir = releasedDir) {
  let files;
  try {
    files = readdirSync(dir);
  } catch {
    return [];
  }
  return files
    .filter((f) => /^\d+\.\d+\.\d+\.json$/.test(f))
    .map((f) => f.slice(0, -'.json'.length))
    .sort(compareVersions);
}

export function compareVersions(a, b) {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pa[i] - pb[i];
  return 0;
}

const major = (v) => Number(String(v).split('.')[0]);

/** The node at `segments` of `start`, following local $refs of `doc` at every step. */
function walk(doc, start, segments) {
  let node = resolve(doc, start);
  for (const s of segments) {
    if (node == null || typeof node !== 'object') return undefined;
    node = resolve(doc, node[s]);
  }
  return node;
}

function typeSet(schema) {
  if (schema == null || typeof schema !== 'object' || schema.type === undefined) return null; // any
  const t = Array.isArray(schema.type) ? schema.type : [schema.type];
  const set = new Set(t);
  if (set.has('number')) set.add('integer');
  return set;
}

const subset = (a, b) => (b === null ? true : a === null ? false : [...a].every((x) => b.has(x)));

/** A readable field path from schema segments: properties/x/items/properties/y -> .x[].y */
function fieldPath(segments) {
  let out = '';
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i];
    if (s === 'properties' && i + 1 < segments.length) out += `.${segments[++i]}`;
    else if (s === 'items') out += '[]';
    else if (s === 'additionalProperties') out += '.*';
  }
  return out;
}

function describeValue(v) {
  if (v === undefined) return 'none';
  const s = JSON.stringify(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

/**
 * Compares two bundled documents. Returns { breaking, nonBreaking, other, text } where each entry is
 * { message, path } (text: a count of documentation-only changes).
 */
export function compareDocuments(before, after) {
  const [base, head] = [before, after].map((doc) => exposeContentSchemas(inlineSharedBounds(doc)));
  const { diffs, merged } = apiCompare(base, head);
  const breaking = [];
  const nonBreaking = [];
  const other = [];
  let text = 0;
  const seen = new Set();
  const add = (list, message, p) => {
    if (seen.has(message)) return;
    seen.add(message);
    list.push({ message, path: p });
  };

  for (const d of diffs) {
    const p = d.path.map(String);
    if (p[0] !== 'paths') {
      if (p[0] === 'info' && p[1] === 'version') continue;
      if (p[0] !== 'components') text++; // components are judged where the operations use them
      continue;
    }
    const where = classify(d, p, base, head, merged);
    if (where === null) continue;
    if (where.verdict === 'text') text++;
    else if (where.verdict === 'breaking') add(breaking, where.message, p.join('/'));
    else if (where.verdict === 'non-breaking') add(nonBreaking, where.message, p.join('/'));
    else add(other, where.message, p.join('/'));
  }

  for (const c of errorCodeChanges(before, after)) add(c.breaking ? breaking : nonBreaking, c.message, c.path);
  for (const c of unusedComponentsRemoved(before, after)) add(nonBreaking, c.message, c.path);
  return { breaking, nonBreaking, other, text };
}

/**
 * The components an operation of `doc` uses, directly or through other components (`$ref`s followed), as
 * `kind/name` (`schemas/Movement`).
 */
export function usedComponents(doc) {
  const used = new Set();
  const visit = (node) => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node && typeof node === 'object') {
      const ref = typeof node.$ref === 'string' ? /^#\/components\/([^/]+)\/([^/]+)$/.exec(node.$ref) : null;
      const key = ref && `${ref[1]}/${ref[2]}`;
      if (key && !used.has(key)) {
        used.add(key);
        visit(pointer(doc, node.$ref.slice(2).split('/')));
      }
      Object.values(node).forEach(visit);
    }
  };
  visit(doc?.paths ?? {});
  visit(doc?.webhooks ?? {});
  return used;
}

/** The components of `before` that no operation used and that `after` no longer holds. */
function unusedComponentsRemoved(before, after) {
  const used = usedComponents(before);
  const changes = [];
  for (const [kind, entries] of Object.entries(before?.components ?? {})) {
    for (const name of Object.keys(entries ?? {})) {
      const key = `${kind}/${name}`;
      if (used.has(key) || after?.components?.[kind]?.[name] !== undefined) continue;
      changes.push({
        path: `components/${key}`,
        message: `component ${key} removed: no operation used it, so no request or response changes (a generated client loses only its named type ${name})`,
      });
    }
  }
  return changes;
}

function classify(d, p, before, after, merged) {
  const doc = d.action === 'add' ? after : before;
  const pathName = p[1];
  if (p.length === 2) {
    return d.action === 'add'
      ? { verdict: 'non-breaking', message: `path ${pathName} added` }
      : d.action === 'remove'
        ? { verdict: 'breaking', message: `path ${pathName} removed` }
        : { verdict: d.type, message: `path ${pathName} changed` };
  }
  const method = p[2];
  if (!METHODS.has(method)) {
    // path-level parameters, summary, servers
    return TEXT.has(p[2])
      ? { verdict: 'text' }
      : { verdict: d.type, message: `${pathName}: ${p.slice(2).join('/')} ${d.action}` };
  }
  const op = `${method.toUpperCase()} ${pathName}`;
  if (p.length === 3) {
    return d.action === 'add'
      ? { verdict: 'non-breaking', message: `${op}: operation added` }
      : { verdict: 'breaking', message: `${op}: operation removed` };
  }
  const rest = p.slice(3);
  const last = p[p.length - 1];
  const change = `${d.action === 'add' ? 'added' : d.action === 'remove' ? 'removed' : 'changed'}`;

  if (rest[0] === 'operationId') {
    return {
      verdict: 'breaking',
      message: `${op}: operationId ${describeValue(d.before)} -> ${describeValue(d.after)}`,
    };
  }
  // Error codes and examples are judged by errorCodeChanges; other text is documentation only.
  if (rest.includes('examples') || rest.includes('example')) return { verdict: 'text' };
  const codeAt = rest.findIndex((s, i) => s === 'code' && rest[i - 1] === 'properties' && rest[i - 3] === 'errors');
  if (codeAt >= 0) return null;

  let direction;
  let location;
  let schemaSegments;
  if (rest[0] === 'parameters') {
    direction = 'input';
    const param =
      walk(doc, pointer(merged, p.slice(0, 5)), []) ?? walk(doc, d.action === 'add' ? d.after : d.before, []);
    const name = param?.name ?? rest[1];
    location = `parameter \`${name}\`${param?.in ? ` (${param.in})` : ''}`;
    if (rest.length === 2) {
      if (d.action === 'add') {
        const added = resolve(after, d.after);
        return added?.required
          ? { verdict: 'breaking', message: `${op}: required ${location} added` }
          : { verdict: 'non-breaking', message: `${op}: optional ${location} added` };
      }
      if (d.action === 'remove') return { verdict: 'breaking', message: `${op}: ${location} removed` };
      return { verdict: 'breaking', message: `${op}: ${location} changed` };
    }
    if (rest[2] === 'required') {
      const now = resolve(after, walk(after, pointer(after, p.slice(0, 3)), []))?.required;
      const was = d.before === true;
      const isNow = d.action === 'remove' ? false : d.after === true;
      if (isNow && !was) return { verdict: 'breaking', message: `${op}: ${location} made required` };
      if (was && !isNow) return { verdict: 'non-breaking', message: `${op}: ${location} made optional` };
      return now === undefined ? { verdict: d.type, message: `${op}: ${location} required ${change}` } : null;
    }
    if (rest[2] === 'name' || rest[2] === 'in') {
      return {
        verdict: 'breaking',
        message: `${op}: ${location} ${rest[2]} ${describeValue(d.before)} -> ${describeValue(d.after)}`,
      };
    }
    if (rest[2] === 'deprecated') {
      // Still accepted: a warning to clients, listed so that a release notes it.
      return {
        verdict: 'non-breaking',
        message: `${op}: ${location} ${d.action !== 'remove' && d.after === true ? 'deprecated' : 'no longer deprecated'}`,
      };
    }
    if (rest[2] !== 'schema')
      return TEXT.has(rest[2])
        ? { verdict: 'text' }
        : { verdict: d.type, message: `${op}: ${location} ${rest.slice(2).join('/')} ${change}` };
    schemaSegments = rest.slice(3);
  } else if (rest[0] === 'requestBody') {
    direction = 'input';
    if (rest.length === 1) {
      return d.action === 'add'
        ? {
            verdict: resolve(after, d.after)?.required ? 'breaking' : 'non-breaking',
            message: `${op}: request body added`,
          }
        : { verdict: 'breaking', message: `${op}: request body ${change}` };
    }
    if (rest[1] === 'required') {
      return d.after === true
        ? { verdict: 'breaking', message: `${op}: request body made required` }
        : { verdict: 'non-breaking', message: `${op}: request body made optional` };
    }
    if (rest[1] !== 'content')
      return TEXT.has(rest[1])
        ? { verdict: 'text' }
        : { verdict: d.type, message: `${op}: request body ${rest.slice(1).join('/')} ${change}` };
    location = `request body (${rest[2]})`;
    if (rest.length === 3) {
      return d.action === 'add'
        ? { verdict: 'non-breaking', message: `${op}: ${location} media type added` }
        : { verdict: 'breaking', message: `${op}: ${location} media type ${change}` };
    }
    if (rest[3] !== 'schema') return { verdict: 'text' };
    schemaSegments = rest.slice(4);
  } else if (rest[0] === 'responses') {
    direction = 'output';
    const status = rest[1];
    if (rest.length === 2) {
      return d.action === 'add'
        ? { verdict: 'non-breaking', message: `${op}: response status ${status} added` }
        : { verdict: 'breaking', message: `${op}: response status ${status} ${change}` };
    }
    if (rest[2] === 'headers') {
      return d.action === 'remove' && rest.length === 4
        ? { verdict: 'breaking', message: `${op}: response ${status} header ${rest[3]} removed` }
        : TEXT.has(last)
          ? { verdict: 'text' }
          : { verdict: d.type, message: `${op}: response ${status} header ${rest.slice(3).join('/')} ${change}` };
    }
    if (rest[2] !== 'content')
      return TEXT.has(rest[2])
        ? { verdict: 'text' }
        : { verdict: d.type, message: `${op}: response ${status} ${rest.slice(2).join('/')} ${change}` };
    location = `response ${status} (${rest[3]})`;
    if (rest.length === 4) {
      return d.action === 'add'
        ? { verdict: 'non-breaking', message: `${op}: ${location} media type added` }
        : { verdict: 'breaking', message: `${op}: ${location} media type ${change}` };
    }
    if (rest[4] !== 'schema') return { verdict: 'text' };
    schemaSegments = rest.slice(5);
  } else {
    return TEXT.has(rest[0]) ? { verdict: 'text' } : { verdict: d.type, message: `${op}: ${rest.join('/')} ${change}` };
  }
  // The schema that holds the changed keyword, as it was (what it already admitted).
  const holder = walk(before, pointer(before, ['paths', pathName, method]), rest.slice(0, -1));
  return classifySchema(d, op, location, direction, schemaSegments, holder);
}

function classifySchema(d, op, location, direction, seg, holder) {
  const input = direction === 'input';
  const last = seg[seg.length - 1];
  const parentKey = seg[seg.length - 2];
  const field = (s) => fieldPath(s) || '';
  const at = (s) => `${op}: ${location}${field(s) ? ` field \`${field(s).replace(/^\./, '')}\`` : ''}`;
  const narrowed = (what) => ({
    verdict: input ? 'breaking' : 'non-breaking',
    message: `${what} (narrowed ${direction})`,
  });
  const widened = (what) => ({
    verdict: input ? 'non-breaking' : 'breaking',
    message: `${what} (widened ${direction})`,
  });
  const before = d.before;
  const after = d.after;

  if (seg.length === 0) return { verdict: 'breaking', message: `${op}: ${location} schema ${d.action}` };
  if (!input && d.action === 'add' && (CONTENT_ANNOTATIONS.has(last) || isContentField(last))) {
    const what = isContentField(last) ? `contentSchema (${last.slice('(content: '.length, -1)})` : last;
    return {
      verdict: 'non-breaking',
      message: `${at(seg.slice(0, isContentField(last) ? -2 : -1))} ${what} added (an annotation describing what the text already held; JSON Schema checks none of it)`,
    };
  }
  if (TEXT.has(last) && parentKey !== 'properties') return { verdict: 'text' };

  // A property added or removed.
  if (parentKey === 'properties') {
    const name = field(seg).replace(/^\./, '');
    if (d.action === 'remove') return { verdict: 'breaking', message: `${op}: ${location} field \`${name}\` removed` };
    if (d.action === 'add') return { verdict: 'non-breaking', message: `${op}: ${location} field \`${name}\` added` };
  }
  // required: an array of names (or one of its items).
  if (last === 'required' || parentKey === 'required') {
    const names = (v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
    const base = last === 'required' ? seg.slice(0, -1) : seg.slice(0, -2);
    const gained = d.action === 'remove' ? [] : names(after).filter((n) => !names(before).includes(n));
    const lost = d.action === 'add' ? [] : names(before).filter((n) => !names(after).includes(n));
    const parts = [];
    for (const n of gained) {
      parts.push(
        input
          ? { verdict: 'breaking', message: `${at([...base, 'properties', n])} made required` }
          : { verdict: 'non-breaking', message: `${at([...base, 'properties', n])} now always present` },
      );
    }
    for (const n of lost) {
      parts.push(
        input
          ? { verdict: 'non-breaking', message: `${at([...base, 'properties', n])} made optional` }
          : { verdict: 'breaking', message: `${at([...base, 'properties', n])} no longer always present` },
      );
    }
    return parts[0] ?? { verdict: 'text' };
  }
  // enum values
  if (last === 'enum' || parentKey === 'enum') {
    const base = last === 'enum' ? seg.slice(0, -1) : seg.slice(0, -2);
    const vals = (v) => (v === undefined ? [] : last === 'enum' ? v : [v]);
    const lost = d.action === 'add' ? [] : vals(before).filter((v) => !vals(after).includes(v));
    const gained = d.action === 'remove' ? [] : vals(after).filter((v) => !vals(before).includes(v));
    if (lost.length)
      return {
        verdict: 'breaking',
        message: `${at(base)} enum value(s) ${lost.map(describeValue).join(', ')} removed`,
      };
    if (gained.length) return widened(`${at(base)} enum value(s) ${gained.map(describeValue).join(', ')} added`);
    return { verdict: 'text' };
  }
  // type (a string or an array of strings)
  if (last === 'type' || parentKey === 'type') {
    // A type is a name or a list of names; no type at all accepts anything.
    const types = (v) => (v === undefined ? null : typeSet({ type: v }));
    let was;
    let now;
    if (last === 'type') {
      was = d.action === 'add' ? null : types(before);
      now = d.action === 'remove' ? null : types(after);
    } else {
      // one name of a list added or removed
      was = new Set(d.action === 'add' ? [] : [before]);
      now = new Set(d.action === 'remove' ? [] : [after]);
    }
    const what = `${at(last === 'type' ? seg.slice(0, -1) : seg.slice(0, -2))} type ${describeValue(before)} -> ${describeValue(after)}`;
    const lost = !subset(was, now); // something accepted before is not now
    const gained = !subset(now, was);
    if (lost && !gained) return narrowed(what);
    if (gained && !lost) return widened(what);
    return { verdict: 'breaking', message: `${what} (changed)` };
  }
  if (UPPER.has(last) || LOWER.has(last)) {
    const upper = UPPER.has(last);
    const what = `${at(seg.slice(0, -1))} ${last} ${describeValue(before)} -> ${describeValue(after)}`;
    if (d.action === 'add') return narrowed(what);
    if (d.action === 'remove') return widened(what);
    if (typeof before === 'number' && typeof after === 'number') {
      const tighter = upper ? after < before : after > before;
      return tighter ? narrowed(what) : widened(what);
    }
    return { verdict: 'breaking', message: `${what} (changed)` };
  }
  if (CONSTRAINTS.has(last)) {
    const what = `${at(seg.slice(0, -1))} ${last} ${describeValue(before)} -> ${describeValue(after)}`;
    if (d.action === 'add') return narrowed(what);
    if (d.action === 'remove') return widened(what);
    return { verdict: 'breaking', message: `${what} (changed; neither narrower nor wider can be shown)` };
  }
  if (last === 'additionalProperties') {
    const what = `${at(seg.slice(0, -1))} additionalProperties ${describeValue(before)} -> ${describeValue(after)}`;
    // An object that admitted no property at all (`maxProperties: 0`) admits the same with no additional one.
    if (after === false && holder?.maxProperties === 0) {
      return { verdict: 'non-breaking', message: `${what} (the same objects: maxProperties is 0)` };
    }
    if (after === false || (d.action === 'add' && after !== true)) return narrowed(what);
    if (d.action === 'remove' || after === true) return widened(what);
  }
  return {
    verdict: d.type === 'annotation' ? 'text' : d.type,
    message: `${at(seg)} ${seg.slice(-1)[0]} ${d.action === 'add' ? 'added' : d.action === 'remove' ? 'removed' : 'changed'}${d.description ? `: ${d.description}` : ''}`,
  };
}

/**
 * The `ErrorCode` catalogue: code -> { name, status }. Read from `x-codes` (each code's name and status beside
 * the schema's `enum`), or, in the documents released up to 1.1.0, from a `oneOf` of `const` codes with `title`
 * and `x-status`: the same catalogue written either way is no change.
 */
function catalogue(doc) {
  const out = new Map();
  const schema = doc?.components?.schemas?.ErrorCode;
  for (const entry of schema?.['x-codes'] ?? []) {
    if (entry && typeof entry.code === 'number') out.set(entry.code, { name: entry.name, status: entry.status });
  }
  for (const entry of schema?.oneOf ?? []) {
    if (entry && typeof entry.const === 'number')
      out.set(entry.const, { name: entry.title, status: entry['x-status'] });
  }
  return out;
}

/** Error codes each operation's responses document in their examples: "GET /x 404" -> Set of codes. */
function documentedCodes(doc) {
  const out = new Map();
  for (const [p, item] of Object.entries(doc?.paths ?? {})) {
    for (const [method, operation] of Object.entries(item ?? {})) {
      if (!METHODS.has(method)) continue;
      for (const [status, response] of Object.entries(operation?.responses ?? {})) {
        const codes = new Set();
        for (const media of Object.values(resolve(doc, response)?.content ?? {})) {
          const values = [media.example, ...Object.values(media.examples ?? {}).map((e) => resolve(doc, e)?.value)];
          for (const v of values) for (const e of v?.errors ?? []) if (typeof e?.code === 'number') codes.add(e.code);
        }
        if (codes.size) out.set(`${method.toUpperCase()} ${p}: response ${status}`, codes);
      }
    }
  }
  return out;
}

/** Our own check of error codes: the catalogue and the codes each response documents. */
export function errorCodeChanges(before, after) {
  const changes = [];
  const a = catalogue(before);
  const b = catalogue(after);
  const where = 'components/schemas/ErrorCode';
  for (const [code, was] of a) {
    const now = b.get(code);
    if (!now)
      changes.push({
        breaking: true,
        path: where,
        message: `error code ${code} (${was.name}) removed from the catalogue`,
      });
    else {
      if (now.status !== was.status)
        changes.push({
          breaking: true,
          path: where,
          message: `error code ${code} (${was.name}) status ${was.status} -> ${now.status}`,
        });
      if (now.name !== was.name)
        changes.push({ breaking: true, path: where, message: `error code ${code} renamed ${was.name} -> ${now.name}` });
    }
  }
  for (const [code, now] of b) {
    if (!a.has(code))
      changes.push({
        breaking: false,
        path: where,
        message: `error code ${code} (${now.name}) added to the catalogue`,
      });
  }
  const da = documentedCodes(before);
  const db = documentedCodes(after);
  const kept = new Set([...db.keys()].map((k) => k.slice(0, k.lastIndexOf(': response '))));
  for (const [key, codes] of da) {
    if (!kept.has(key.slice(0, key.lastIndexOf(': response ')))) continue; // a removed operation: listed as such
    const now = db.get(key) ?? new Set();
    for (const code of codes) {
      if (!now.has(code))
        changes.push({ breaking: true, path: key, message: `${key} no longer gives error code ${code}` });
    }
  }
  const operations = new Set([...da.keys()].map((k) => k.slice(0, k.lastIndexOf(': response '))));
  for (const [key, codes] of db) {
    if (!operations.has(key.slice(0, key.lastIndexOf(': response ')))) continue; // a new operation: listed as such
    const was = da.get(key) ?? new Set();
    for (const code of codes) {
      if (!was.has(code)) changes.push({ breaking: false, path: key, message: `${key} gives error code ${code}` });
    }
  }
  return changes;
}

/**
 * The guard's verdict for `head` against `base`: { ok, breaking, nonBreaking, other, text, allowedByMajor }.
 */
export function checkCompatibility(base, head) {
  const result = compareDocuments(base, head);
  const baseVersion = base?.info?.version ?? '0.0.0';
  const headVersion = head?.info?.version ?? '0.0.0';
  const allowedByMajor = major(headVersion) > major(baseVersion);
  const versionError =
    compareVersions(headVersion, baseVersion) < 0
      ? `info.version ${headVersion} is lower than the released ${baseVersion}`
      : null;
  return {
    ...result,
    baseVersion,
    headVersion,
    allowedByMajor,
    versionError,
    ok: !versionError && (result.breaking.length === 0 || allowedByMajor),
  };
}

export function report(r, { verbose = false } = {}) {
  const lines = [];
  const list = (title, items) => {
    if (!items.length) return;
    lines.push(`${title} (${items.length}):`);
    for (const i of items) lines.push(`  - ${i.message}${verbose ? `\n      at ${i.path}` : ''}`);
  };
  list(
    r.allowedByMajor ? `Breaking changes, allowed by the major version ${r.headVersion}` : 'Breaking changes',
    r.breaking,
  );
  list('Non-breaking changes', r.nonBreaking);
  list('Other changes (not classified by the library, not breaking by our rules)', r.other);
  if (r.text) lines.push(`${r.text} documentation-only change(s) (descriptions, examples, titles) not listed.`);
  if (!r.breaking.length && !r.nonBreaking.length && !r.other.length) lines.push('No API change.');
  const changed = r.breaking.length || r.nonBreaking.length || r.other.length;
  if (changed && r.headVersion === r.baseVersion)
    lines.push(
      `Note: these changes are not released yet; info.version is still ${r.baseVersion} (npm run release -- <version>).`,
    );
  if (r.versionError) lines.push(`FAIL: ${r.versionError}.`);
  else if (r.ok && r.breaking.length)
    lines.push(
      `OK: the major version was raised (${r.baseVersion} -> ${r.headVersion}); record the breaking changes in CHANGELOG.md.`,
    );
  else if (r.ok) lines.push(`OK: ${r.headVersion} is compatible with the released ${r.baseVersion}.`);
  else
    lines.push(
      `FAIL: ${r.breaking.length} breaking change(s) against the released ${r.baseVersion}. Undo them, or make them in a new major version (info.version ${major(r.baseVersion) + 1}.0.0; npm run release -- ${major(r.baseVersion) + 1}.0.0).`,
    );
  return lines.join('\n');
}

function main(argv) {
  const args = { base: undefined, head: path.join(root, 'generated/openapi.json'), verbose: false, json: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--base') args.base = argv[++i];
    else if (argv[i] === '--head') args.head = argv[++i];
    else if (argv[i] === '--verbose') args.verbose = true;
    else if (argv[i] === '--json') args.json = true;
    else {
      console.error(`unknown argument ${argv[i]}`);
      return 2;
    }
  }
  if (!args.base) {
    const versions = releasedVersions();
    if (!versions.length) {
      console.log('spec:compat: no released document in spec/released/; nothing to compare with.');
      return 0;
    }
    args.base = path.join(releasedDir, `${versions[versions.length - 1]}.json`);
  }
  const base = JSON.parse(readFileSync(args.base, 'utf8'));
  const head = JSON.parse(readFileSync(args.head, 'utf8'));
  const r = checkCompatibility(base, head);
  if (args.json) console.log(JSON.stringify(r, null, 2));
  else {
    console.log(
      `spec:compat: ${path.relative(process.cwd(), args.head) || args.head} (${r.headVersion}) against ${path.relative(process.cwd(), args.base) || args.base} (${r.baseVersion})`,
    );
    console.log(report(r, args));
  }
  return r.ok ? 0 : 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exitCode = main(process.argv.slice(2));
