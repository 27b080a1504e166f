/**
 * What every answer of the real server must be, whatever was asked: a 2xx whose body the spec documents for
 * the operation and status, or a 4xx in the spec's error body with catalogue codes of that status; never a
 * 5xx, a hang, a dropped connection or a 2xx on a protected operation without a valid token.
 */
import { type OperationId, operationMeta } from '@gateway/generated';
import { errorBodyProblems, errorCodeProblems, responseProblems } from '../../src/spec.js';
import type { RawAnswer } from './http.js';
import { type Json, type OperationModel, operationsAt, resolve } from './spec-model.js';

export interface SentRequest {
  /** The operation the request was generated for ('(route)' for the route corpus). */
  target: string;
  /** How it was made (the fuzz strategy). */
  strategy: string;
  method: string;
  path: string;
  contentType: string | undefined;
  /** Whether it carried a valid bearer token. */
  validToken: boolean;
  bodyBytes: number;
}

export interface Violation {
  request: SentRequest;
  status: number;
  problems: string[];
  excerpt: string;
}

const header = (answer: RawAnswer, name: string): string | undefined => {
  const value = answer.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
};

/** The documented media types of an operation's response for a status. */
function documentedTypes(op: OperationModel, status: number): string[] | null {
  const documented = op.responses[String(status)];
  if (!documented) return null;
  return Object.keys((resolve(documented).content as Json | undefined) ?? {});
}

/** Paths the server serves beside the API, outside the spec's operations. */
export const OUTSIDE_THE_SPEC = ['/openapi.json', '/docs'];

export function answerProblems(ops: readonly OperationModel[], request: SentRequest, answer: RawAnswer): string[] {
  if (answer.error) return [answer.error];
  const { status } = answer;
  // The router ends the path at '?' or '#' (a fragment has no place in a request target, but is tolerated).
  const rawPath = request.path.split(/[?#]/)[0] ?? '';
  if (OUTSIDE_THE_SPEC.some((prefix) => rawPath === prefix || rawPath.startsWith(`${prefix}/`))) {
    // Served on purpose beside the API (the spec itself, its reference UI): only 5xx and hangs count.
    return status >= 500 ? [`server error ${status}`] : [];
  }
  const problems: string[] = [];
  const atPath = operationsAt(ops, rawPath);
  const method = request.method === 'HEAD' ? 'GET' : request.method;
  const [op] = atPath.filter((o) => o.method === method);
  const contentType = header(answer, 'content-type') ?? '';
  const hasBody = request.method !== 'HEAD' && answer.text !== '';

  if (status >= 500) problems.push(`server error ${status}`);
  else if (status < 200 || (status >= 300 && status < 400)) problems.push(`unexpected status ${status}`);
  else if (status < 300) {
    if (!op) problems.push(`2xx for a path and method no operation has`);
    else {
      if (op.secured && !request.validToken) problems.push(`2xx on protected ${op.id} without a valid token`);
      const types = documentedTypes(op, status);
      if (!types) problems.push(`status ${status} is not documented for ${op.id}`);
      else if (hasBody && types.length > 0 && !types.includes('application/json')) {
        // A non-JSON representation (e.g. text metrics): the media type must be the documented one.
        if (!types.some((t) => contentType.toLowerCase().startsWith(t))) {
          problems.push(`content-type ${contentType}, documented ${types.join(', ')}`);
        }
      } else if (request.method !== 'HEAD') {
        if (!(op.id in operationMeta)) problems.push(`${op.id} is not in generated operationMeta (stale build?)`);
        else problems.push(...responseProblems(op.id as OperationId, status, answer.body));
      }
    }
  } else {
    // 4xx: the one error body, catalogue codes of this status, a status the operation documents.
    if (request.method !== 'HEAD') {
      if (!/^application\/json/i.test(contentType)) problems.push(`error content-type "${contentType}"`);
      if (typeof answer.body !== 'object' || answer.body === null) problems.push('error body is not JSON');
      else {
        problems.push(...errorBodyProblems(answer.body));
        problems.push(...errorCodeProblems(status, answer.body));
      }
    }
    if (op && !op.responses[String(status)]) problems.push(`status ${status} is not documented for ${op.id}`);
    if (status === 405) {
      const allow = (header(answer, 'allow') ?? '').split(',').map((m) => m.trim().toUpperCase());
      if (allow.length === 0 || allow[0] === '') problems.push('405 without Allow');
      if (allow.includes(request.method)) problems.push(`405 for ${request.method}, which Allow lists (${allow})`);
    }
    if (!op && atPath.length === 0 && ![400, 404, 406, 413, 414, 431].includes(status)) {
      problems.push(`status ${status} for a path no operation has`);
    }
  }
  return problems;
}

export function excerptOf(answer: RawAnswer): string {
  const text = answer.text.replace(/\s+/g, ' ');
  return text.length > 160 ? `${text.slice(0, 160)}…` : text;
}

/** Why an answer broke the contract, without the operation's name: violations with one cause group together. */
function causeOf(v: Violation): string {
  const frameworkCode = /"code":"(FST_[A-Z_]+)"/.exec(v.excerpt)?.[1];
  const problem = (v.problems[0] ?? '').replace(/ for [a-z][A-Za-z]+$/, ' for the operation');
  return `${v.status} ${problem}${frameworkCode ? ` (${frameworkCode})` : ''}`;
}

/** A compact, readable sample of the violations, grouped by cause, with the operations and sample requests. */
export function describeViolations(violations: readonly Violation[], samplesPerGroup = 2): string {
  const groups = new Map<string, Violation[]>();
  for (const v of violations) groups.set(causeOf(v), [...(groups.get(causeOf(v)) ?? []), v]);
  const lines: string[] = [`${violations.length} violations, ${groups.size} causes:`];
  for (const [cause, group] of [...groups.entries()].sort((a, b) => b[1].length - a[1].length)) {
    const targets = [...new Set(group.map((v) => v.request.target))];
    lines.push(`- ${cause} [${group.length}x; ${targets.slice(0, 6).join(', ')}${targets.length > 6 ? ', …' : ''}]`);
    for (const v of group.slice(0, samplesPerGroup)) {
      const url =
        v.request.path.length > 120
          ? `${v.request.path.slice(0, 120)}…(${v.request.path.length} chars)`
          : v.request.path;
      lines.push(
        `    ${v.request.method} ${url} ct=${v.request.contentType ?? '-'} body=${v.request.bodyBytes}B ` +
          `token=${v.request.validToken ? 'valid' : 'none/bad'} (${v.request.strategy}) → ${v.status} ${v.excerpt}`,
      );
    }
  }
  return lines.join('\n');
}
