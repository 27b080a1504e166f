/** Sends a scenario's request to a target and checks the answer against the scenario and the spec. */

import { operationMeta } from '@gateway/generated';
import type { Scenario, ScenarioContext, ScenarioRequest, Target } from './scenario.js';
import { errorBodyProblems, errorCodeProblems, responseProblems } from './spec.js';

export interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

/** A well-formed bearer token no server issued. */
const FALSE_TOKEN =
  'eyJhbGciOiJFZERTQSIsInR5cCI6IkpXVCJ9.eyJhIjoiM1A5S1IzM1F5WHdmVFh2OGtLdE5HWll0Z0trM1JYU1VrMzYiLCJleHAiOjQxMDI0NDQ4MDB9.AAAA';

export async function send(baseUrl: string, scenario: Scenario, context: ScenarioContext): Promise<Answer> {
  const request: ScenarioRequest =
    typeof scenario.request === 'function' ? await scenario.request(context) : scenario.request;
  const method = request.method ?? (scenario.operationId ? operationMeta[scenario.operationId].method : 'GET');
  const url = new URL(request.path, baseUrl);
  for (const [key, value] of Object.entries(request.query ?? {})) url.searchParams.set(key, value);
  const headers: Record<string, string> = { Accept: 'application/json', ...request.headers };
  if (request.auth === 'token') headers.Authorization = await context.bearer();
  if (request.auth === 'bad-token') headers.Authorization = `Bearer ${FALSE_TOKEN}`;
  if (request.body) headers['Content-Type'] = request.body.contentType;
  const response = await fetch(url, { method, headers, body: request.body?.text });
  const text = response.headers.get('content-type')?.startsWith('text/event-stream')
    ? await firstChunk(response)
    : await response.text();
  let body: unknown = text;
  if (text && response.headers.get('content-type')?.includes('json')) body = JSON.parse(text);
  return { status: response.status, headers: response.headers, body };
}

/**
 * Headers Prism's mock sets by itself, whatever the spec says: for a deprecated operation it sends the
 * draft form `Deprecation: true`, not the spec's RFC 9745 date. The real server is held to the spec.
 */
const PRISM_MOCK_HEADERS: Record<string, RegExp> = { deprecation: /^true$/ };

/** Everything wrong with an answer, as readable lines; empty when the scenario holds. */
export function problemsWith(answer: Answer, scenario: Scenario, target: Target): string[] {
  const problems: string[] = [];
  const { status, body } = answer;
  if (status !== scenario.expect.status) {
    problems.push(`status ${status}, expected ${scenario.expect.status}; body ${JSON.stringify(body).slice(0, 600)}`);
    return problems;
  }
  problems.push(
    ...(scenario.operationId ? responseProblems(scenario.operationId, status, body) : errorBodyProblems(body)),
  );
  if (status >= 400) {
    problems.push(...errorCodeProblems(status, body));
    const codes = ((body as { errors?: { code: number }[] }).errors ?? []).map((e) => e.code);
    if (target === 'server' && scenario.expect.code !== undefined && !codes.includes(scenario.expect.code)) {
      problems.push(`codes ${JSON.stringify(codes)}, expected ${scenario.expect.code}`);
    }
  }
  for (const [name, specPattern] of Object.entries(scenario.expect.headers ?? {})) {
    const pattern = (target === 'mock' && PRISM_MOCK_HEADERS[name]) || specPattern;
    const value = answer.headers.get(name);
    if (value === null || !pattern.test(value)) problems.push(`header ${name}: ${value}, expected ${pattern}`);
  }
  return problems;
}

/** The first bytes of a streamed body (an event stream does not end while its token lives), then it is closed. */
export async function firstChunk(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const { value } = await reader.read();
  await reader.cancel();
  return new TextDecoder().decode(value);
}
