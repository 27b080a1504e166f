// The client's plain calls, one per operation of the spec (generated/src/calls.ts): how each operation's named
// parameters travel (path, query, body) and what it answers, as data (`callShapes`), and the typed method of
// each (`GatewayCalls`). The client (client/src/calls.ts) turns the data into methods over its `client.api`,
// so that a new operation of the spec has its call after `npm run generate`, with nothing written by hand.
import { resolveRef as followRef, HTTP_METHODS } from './openapi-document.mjs';

/** A spec the calls cannot be generated from (generate.mjs prints its message alone). */
export class CallsError extends Error {}

const resolve = (doc, node) => followRef(doc, node) ?? {};

/** The property names a body schema may hold, across its `oneOf`/`anyOf`/`allOf` branches. */
function bodyNames(doc, schema, seen = new Set()) {
  const node = resolve(doc, schema);
  if (!node || typeof node !== 'object' || seen.has(node)) return [];
  seen.add(node);
  const branches = [...(node.oneOf ?? []), ...(node.anyOf ?? []), ...(node.allOf ?? [])];
  return [...new Set([...Object.keys(node.properties ?? {}), ...branches.flatMap((b) => bodyNames(doc, b, seen))])];
}

/** How the answer is read: JSON, text, or the stream itself (an event stream), by the success's media type. */
function answerOf(doc, op) {
  const statuses = Object.keys(op.responses ?? {}).filter((status) => /^2\d\d$/.test(status));
  const status = statuses.includes('200') ? '200' : statuses.sort()[0];
  if (!status) return { status: null, media: null, parseAs: 'json' };
  const media = Object.keys(resolve(doc, op.responses[status]).content ?? {});
  if (media.includes('application/json')) return { status, media: 'application/json', parseAs: 'json' };
  if (media.includes('text/event-stream')) return { status, media: 'text/event-stream', parseAs: 'stream' };
  if (media.length > 0) return { status, media: media[0], parseAs: 'text' };
  return { status, media: null, parseAs: 'json' };
}

/** Each operation's call: its parameters by where they travel, its body's media type and its answer. */
export function collectCalls(doc) {
  const calls = [];
  for (const [routePath, item] of Object.entries(doc.paths)) {
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!op) continue;
      const id = op.operationId;
      const parameters = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p) => resolve(doc, p));
      const pathNames = parameters.filter((p) => p.in === 'path').map((p) => p.name);
      const queryAll = parameters.filter((p) => p.in === 'query');
      const bodyMedia = Object.keys(op.requestBody?.content ?? {});
      // The form first when the spec takes both: it is what an OAuth client sends (RFC 6749, section 4.3).
      const body = bodyMedia.includes('application/x-www-form-urlencoded')
        ? 'form'
        : bodyMedia.includes('application/json')
          ? 'json'
          : null;
      const bodyMediaType = body === 'form' ? 'application/x-www-form-urlencoded' : 'application/json';
      const inBody = body ? bodyNames(doc, op.requestBody.content[bodyMediaType].schema) : [];
      // A query parameter the body also holds ("as in the body") is sent once, in the body.
      const query = queryAll.filter((p) => !inBody.includes(p.name));
      const clash = [...pathNames, ...query.map((p) => p.name)].find(
        (name, index, all) => all.indexOf(name) !== index || inBody.includes(name),
      );
      if (clash) {
        throw new CallsError(
          `${id}: the parameter ${clash} is named twice (path, query, body): its call cannot take it by name`,
        );
      }
      calls.push({
        id,
        method: method.toUpperCase(),
        path: routePath,
        summary: op.summary ?? '',
        secured: (op.security ?? doc.security ?? []).length > 0,
        deprecated: op.deprecated === true,
        successor: op['x-successor'] ?? null,
        pathNames,
        queryNames: query.map((p) => p.name),
        queryDropped: queryAll.length - query.length,
        queryRequired: query.some((p) => p.required === true),
        body,
        bodyMediaType,
        bodyRequired: op.requestBody?.required === true,
        answer: answerOf(doc, op),
      });
    }
  }
  return calls;
}

const comment = (text) => text.replaceAll('*/', '*\\/');

function paramsType(call) {
  const op = `operations[${JSON.stringify(call.id)}]`;
  const parts = [];
  if (call.pathNames.length > 0) parts.push(`${op}["parameters"]["path"]`);
  if (call.queryNames.length > 0) {
    const query = `NonNullable<${op}["parameters"]["query"]>`;
    parts.push(
      call.queryDropped > 0 ? `Pick<${query}, ${call.queryNames.map((n) => JSON.stringify(n)).join(' | ')}>` : query,
    );
  }
  if (call.body) {
    parts.push(`NonNullable<${op}["requestBody"]>["content"][${JSON.stringify(call.bodyMediaType)}]`);
  }
  return parts.length > 0 ? parts.join(' & ') : 'NoParams';
}

function answerType(call) {
  const { status, media, parseAs } = call.answer;
  if (parseAs === 'stream') return 'ReadableStream<Uint8Array>';
  if (parseAs === 'text') return 'string';
  if (!media) return 'void';
  return `operations[${JSON.stringify(call.id)}]["responses"][${status}]["content"][${JSON.stringify(media)}]`;
}

/** The text of generated/src/calls.ts. */
export function callsModule(header, calls) {
  const shapes = calls
    .map(
      (c) =>
        `  ${c.id}: { path: ${JSON.stringify(c.pathNames)}, query: ${JSON.stringify(c.queryNames)}, body: ${JSON.stringify(c.body)}, answer: ${JSON.stringify(c.answer.parseAs)} },`,
    )
    .join('\n');
  const methods = calls
    .map((c) => {
      const optional = c.pathNames.length === 0 && !c.queryRequired && !(c.body && c.bodyRequired);
      const lines = [
        c.summary && comment(c.summary.replace(/\.?$/, '.')),
        `\`${c.method} ${c.path}\`${c.secured ? ', signed in' : ''}.`,
        c.deprecated && `@deprecated${c.successor ? ` Use \`${c.successor}\`.` : ''}`,
      ].filter(Boolean);
      return `  /**\n${lines.map((l) => `   * ${l}`).join('\n')}\n   */\n  ${c.id}(params${optional ? '?' : ''}: ${paramsType(c)}, options?: Options): Promise<${answerType(c)}>;`;
    })
    .join('\n');
  return `${header}
import type { OperationId } from './operations.js';
import type { operations } from './schema.js';

/** How an operation's named parameters travel, and how its answer is read. */
export interface CallShape {
  /** The names sent in the path. */
  readonly path: readonly string[];
  /** The names sent in the query string. */
  readonly query: readonly string[];
  /** The rest, sent as the body: a form, JSON, or none. */
  readonly body: 'form' | 'json' | null;
  /** The success's body read as JSON, as text, or left as the stream (an event stream). */
  readonly answer: 'json' | 'text' | 'stream';
}

/** Every operation's call, keyed by operationId. */
export const callShapes = {
${shapes}
} as const satisfies Record<OperationId, CallShape>;

/** The parameters of an operation that takes none. */
export type NoParams = Record<string, never>;

/**
 * One method per operation of the spec: its parameters by name (path, query and body together), its success's
 * body as the answer; \`Options\` are the client's per-call options.
 */
export interface GatewayCalls<Options> {
${methods}
}
`;
}
