/**
 * A fuzzer derived from the spec. For every operation of generated/openapi.json it generates requests with a
 * seeded PRNG (wrong types, missing, extra and duplicated parameters, boundary numbers, huge and empty
 * strings, unicode, bad base58 and hex, malformed cursors and dates, traversal, injection, wrong content
 * types, oversized and malformed bodies, bad Accept headers, with a valid, no or a garbage token), sends them
 * over real HTTP to the real server (the built binary with the demo data), and holds every answer to the
 * contract (support/check.ts). Replay a run with FUZZ_SEED; FUZZ_COUNT sets the requests per operation.
 *
 *   cd test && npx vitest run fuzz
 *   FUZZ_SEED=7 FUZZ_COUNT=400 npx vitest run fuzz
 */
import { signerFromSeed } from '@gateway/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordFigures } from '../src/figures.js';
import { type RunningGateway, startGateway } from '../src/gateway.js';
import { answerProblems, describeViolations, excerptOf, type SentRequest, type Violation } from './support/check.js';
import * as corpus from './support/corpus.js';
import { encode, type Hostile } from './support/corpus.js';
import { destroyAgent, pool, type RawAnswer, rawRequest } from './support/http.js';
import { createRng, type Rng } from './support/prng.js';
import { gatewayPid, isAlive } from './support/process.js';
import { DEMO_ADDRESS, DEMO_SEED, nowSeconds, passwordGrant, signIn } from './support/session.js';
import {
  type BodyModel,
  type Json,
  type OperationModel,
  operations,
  type ParamModel,
  resolve,
} from './support/spec-model.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20_240_521);
const OPS = operations();
/** Requests per operation; by default about 2800 in all, plus the route corpus (about 3000 altogether). */
const COUNT = Number(process.env.FUZZ_COUNT ?? Math.ceil(2800 / Math.max(OPS.length, 1)));
const CONCURRENCY = Number(process.env.FUZZ_CONCURRENCY ?? 16);
const OTHER_ACCOUNT = '3PQ4nHEVPtvd4TDP77H7BSdDddyxLs9gQ67';

/** A well-formed bearer token no server issued (alg EdDSA, garbage signature). */
const FALSE_TOKEN =
  'eyJhbGciOiJFZERTQSIsInR5cCI6IkpXVCJ9.eyJhIjoiM1A5S1IzM1F5WHdmVFh2OGtLdE5HWll0Z0trM1JYU1VrMzYiLCJleHAiOjQxMDI0NDQ4MDB9.AAAA';

interface FuzzContext {
  accessToken: string;
  /** Values a request may use that the server knows: currency and platform ids, cursors, movement ids… */
  pools: Map<string, string[]>;
  passwords: Record<string, string>[];
  refreshTokens: string[];
}

interface FuzzCase {
  op: OperationModel | null;
  strategy: string;
  method: string;
  path: string;
  headers: Record<string, string | string[]>;
  body?: string | Uint8Array;
  chunked?: boolean;
  validToken: boolean;
}

// ---------------------------------------------------------------------------------------------------------
// Values

const b64url = (text: string) => Buffer.from(text).toString('base64url');

function randomDate(rng: Rng): string {
  const time = Date.UTC(2021, rng.int(0, 11), rng.int(1, 28), rng.int(0, 23), rng.int(0, 59), rng.int(0, 59));
  const iso = new Date(time + rng.int(0, 999)).toISOString();
  return rng.weighted([
    [6, iso],
    [2, iso.replace(/\.\d{3}Z$/, 'Z')],
    [1, iso.replace('Z', '+02:00')],
    [1, iso.replace('Z', '-05:30')],
  ]);
}

function poolKeys(op: OperationModel, param: { name: string; schemaName: string | null }): string[] {
  return [`${op.id}.${param.name}`, param.schemaName ?? '', param.name].filter(Boolean);
}

function validValue(op: OperationModel, param: ParamModel, rng: Rng, ctx: FuzzContext): string {
  for (const key of poolKeys(op, param)) {
    const values = ctx.pools.get(key);
    if (values?.length && rng.chance(0.9)) return rng.pick(values);
  }
  const schema = param.schema;
  if (Array.isArray(schema.enum)) return String(rng.pick(schema.enum as unknown[]));
  if (schema.type === 'integer' || schema.type === 'number') {
    const min = Number(schema.minimum ?? 0);
    const max = Number(schema.maximum ?? 1000);
    return String(rng.pick([min, max, rng.int(min, max), rng.int(min, Math.min(max, min + 20))]));
  }
  if (schema.format === 'date-time') return randomDate(rng);
  if (param.examples.length > 0 && rng.chance(0.7)) return String(rng.pick(param.examples));
  return rng.string('ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0123456789', rng.int(1, 12));
}

/** A hostile value fitted to the parameter's schema half of the time, anything from the corpus otherwise. */
function hostileValue(param: ParamModel, rng: Rng, ctx: FuzzContext): Hostile {
  const schema = param.schema;
  const fitted: Hostile[] = [];
  if (schema.type === 'integer' || schema.type === 'number') {
    const min = Number(schema.minimum ?? 0);
    const max = Number(schema.maximum ?? 2 ** 31);
    fitted.push(...corpus.numbers, ...[min - 1, min, max, max + 1, max * 10].map((n) => ({ value: String(n) })));
  } else if (schema.format === 'date-time') fitted.push(...corpus.dates);
  else if (param.schemaName === 'Cursor' || param.name === 'after') {
    fitted.push(...corpus.cursors);
    for (const cursor of ctx.pools.get('Cursor') ?? []) {
      const i = rng.int(0, cursor.length - 1);
      const flipped = cursor[i] === 'A' ? 'B' : 'A';
      fitted.push({ value: cursor.slice(0, i) + flipped + cursor.slice(i + 1) }, { value: `${cursor}A` });
      fitted.push({ value: b64url(`${Buffer.from(cursor, 'base64url').subarray(0, 16).toString('latin1')}[1e999]`) });
    }
  } else if (Array.isArray(schema.enum)) {
    fitted.push(...(schema.enum as string[]).flatMap((e) => [{ value: e.toUpperCase() }, { value: ` ${e}` }]));
  } else fitted.push(...corpus.base58AndHex, ...corpus.sizes, ...corpus.unicode);
  return rng.chance(0.5) && fitted.length > 0 ? rng.pick(fitted) : rng.pick(corpus.everything);
}

/** Another type: an array (repeated or bracketed key), an object, a number for a string, JSON text. */
function typeConfusion(name: string, rng: Rng): [string, string][] {
  const key = encodeURIComponent(name);
  return rng.pick<[string, string][]>([
    [
      [key, '1'],
      [key, 'abc'],
    ],
    [[`${key}[]`, '1']],
    [[`${key}[a]`, '1']],
    [[`${key}[__proto__][x]`, '1']],
    [[key, encodeURIComponent('{"a":1}')]],
    [[key, encodeURIComponent('["x"]')]],
    [[key, '12345678901234567890']],
    [[key, 'true']],
    [[key, '']],
    [[key, '-']],
    [[`${key}.x`, '1']],
  ]);
}

// ---------------------------------------------------------------------------------------------------------
// Bodies (for operations with a request body: the token endpoint)

function fieldValue(name: string, property: Json, rng: Rng, ctx: FuzzContext): string {
  if (property.const !== undefined) return String(property.const);
  const password = rng.pick(ctx.passwords);
  switch (name) {
    case 'refresh_token':
      return ctx.refreshTokens.pop() ?? `rt_${'A'.repeat(43)}`;
    case 'password':
      return password.password ?? '';
    case 'username':
      return password.username ?? '';
    default: {
      const examples = (property.examples as unknown[] | undefined) ?? [];
      return examples.length > 0 ? String(rng.pick(examples)) : rng.string('abcdef', 6);
    }
  }
}

function validFields(body: BodyModel, rng: Rng, ctx: FuzzContext): Record<string, string> {
  // A variant without properties (the token request's `{}`) is no body: the empty-body cases cover it.
  const variant = rng.pick(body.variants.filter((v) => Object.keys(v.properties).length > 0));
  const fields: Record<string, string> = {};
  for (const [name, property] of Object.entries(variant.properties))
    fields[name] = fieldValue(name, property, rng, ctx);
  return fields;
}

const formOf = (pairs: [string, string][]) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${v}`).join('&');
const formEncode = (fields: Record<string, unknown>) =>
  formOf(Object.entries(fields).map(([k, v]) => [k, encodeURIComponent(String(v))]));

const WRONG_CONTENT_TYPES = [
  'text/plain',
  'application/xml',
  'text/xml',
  'text/html',
  'application/octet-stream',
  'application/vnd.api+json',
  'application/json-patch+json',
  'application/x-www-form-urlencoded; charset=utf-16',
  'application/json; charset=iso-8859-1',
  'APPLICATION/JSON',
  'Application/X-WWW-Form-Urlencoded',
  'application/json, text/plain',
  '*/*',
  'application',
  ';',
  'multipart/form-data',
];

const MALFORMED_JSON: (string | Uint8Array)[] = [
  '{',
  '}',
  '{"grant_type":"password",}',
  "{'grant_type':'password'}",
  'null',
  '[]',
  '"password"',
  '1e309',
  'true',
  '{"grant_type":"password"}{"a":1}',
  `${'['.repeat(6000)}${']'.repeat(6000)}`,
  `${'{"a":'.repeat(2500)}1${'}'.repeat(2500)}`,
  `\uFEFF{"grant_type":"password"}`,
  Uint8Array.of(0xff, 0xfe, 0x7b, 0x7d),
  Uint8Array.of(0x7b, 0x22, 0xc0, 0xaf, 0x22, 0x3a, 0x31, 0x7d),
  '{"__proto__":{"isAdmin":true},"grant_type":"password"}',
  '{"constructor":{"prototype":{"x":1}},"grant_type":"refresh_token"}',
  '{"grant_type":"password","grant_type":"refresh_token"}',
];

const MALFORMED_FORM: string[] = [
  '&&&==&',
  '=',
  'grant_type',
  'a=%ZZ',
  '%',
  'grant_type=%E0%A4%A',
  '==password',
  '\u0000=\u0000',
];

function bodyCase(body: BodyModel, rng: Rng, ctx: FuzzContext) {
  const headers: Record<string, string | string[]> = {};
  const query: [string, string][] = [];
  let text: string | Uint8Array | undefined;
  let chunked = false;
  const fields: Record<string, unknown> = validFields(body, rng, ctx);
  const json = body.contentTypes.includes('application/json') && rng.chance(0.35);
  const type = json ? 'application/json' : (body.contentTypes[0] ?? 'application/x-www-form-urlencoded');
  const names = Object.keys(fields);
  const strategy = rng.weighted<string>([
    [12, 'body-valid'],
    [20, 'body-hostile-field'],
    [8, 'body-type-confusion'],
    [8, 'body-missing-field'],
    [5, 'body-extra-fields'],
    [5, 'body-duplicate-field'],
    [10, 'body-wrong-content-type'],
    [10, 'body-malformed'],
    [5, 'body-oversized'],
    [4, 'body-empty-with-type'],
    [8, 'body-in-query'],
    [3, 'body-chunked'],
    [2, 'body-and-query'],
  ]);
  switch (strategy) {
    case 'body-hostile-field': {
      const name = rng.pick(names);
      fields[name] = rng.chance(0.3)
        ? corpus.HUGE.slice(0, rng.pick([65, 257, 5000, 20_000]))
        : rng.pick(corpus.everything).value;
      break;
    }
    case 'body-type-confusion': {
      const name = rng.pick(names);
      fields[name] = rng.pick<unknown>([1, -1, 1e308, 0.5, null, true, [], ['password'], {}, { $ne: null }, [[[]]]]);
      break;
    }
    case 'body-missing-field':
      delete fields[rng.pick(names)];
      if (rng.chance(0.3)) delete fields[rng.pick(names)];
      break;
    case 'body-extra-fields':
      Object.assign(
        fields,
        rng.pick<Json>([{ extra: 'x' }, { __proto__x: 1, isAdmin: 'true' }, { 'a[b]': 'c' }, { '': '' }]),
      );
      break;
  }
  if (strategy === 'body-in-query' || strategy === 'body-and-query') {
    for (const [name, value] of Object.entries(fields)) {
      query.push([
        encodeURIComponent(name),
        rng.chance(0.15) ? encode(rng.pick(corpus.everything)) : encodeURIComponent(String(value)),
      ]);
    }
    if (strategy === 'body-in-query') {
      if (rng.chance(0.5)) {
        headers['content-type'] = type;
        text = '';
      }
    } else {
      headers['content-type'] = type;
      text = json ? JSON.stringify(validFields(body, rng, ctx)) : formEncode(validFields(body, rng, ctx));
    }
    return { strategy, headers, query, text, chunked };
  }
  if (strategy === 'body-duplicate-field') {
    const name = rng.pick(names);
    const pairs: [string, string][] = Object.entries(fields).map(([k, v]) => [k, encodeURIComponent(String(v))]);
    pairs.push([name, encodeURIComponent(rng.pick(['password', 'refresh_token', 'general', 'x', '']))]);
    headers['content-type'] = 'application/x-www-form-urlencoded';
    return { strategy, headers, query, text: formOf(pairs), chunked };
  }
  headers['content-type'] = type;
  text = json ? JSON.stringify(fields) : formEncode(fields);
  switch (strategy) {
    case 'body-wrong-content-type': {
      const wrong = rng.pick(WRONG_CONTENT_TYPES);
      headers['content-type'] = wrong;
      if (wrong === 'multipart/form-data') {
        const boundary = 'fuzzboundary';
        headers['content-type'] = `multipart/form-data; boundary=${boundary}`;
        text = `${Object.entries(fields)
          .map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${String(v)}\r\n`)
          .join('')}--${boundary}--\r\n`;
      } else if (/xml/.test(wrong)) text = `<token><grant_type>password</grant_type></token>`;
      else if (rng.chance(0.5)) text = rng.chance(0.5) ? JSON.stringify(fields) : formEncode(fields);
      break;
    }
    case 'body-malformed':
      text = json
        ? rng.pick(MALFORMED_JSON)
        : rng.pick([...MALFORMED_FORM, ...MALFORMED_JSON.filter((m) => typeof m === 'string')]);
      break;
    case 'body-oversized': {
      const size = rng.pick([16 * 1024 + 1, 17 * 1024, 64 * 1024, 256 * 1024]);
      text = json
        ? JSON.stringify({ ...fields, padding: 'x'.repeat(size) })
        : `${formEncode(fields)}&padding=${'x'.repeat(size)}`;
      chunked = rng.chance(0.3);
      break;
    }
    case 'body-empty-with-type':
      text = '';
      if (rng.chance(0.5)) headers['content-type'] = rng.pick(WRONG_CONTENT_TYPES);
      break;
    case 'body-chunked':
      chunked = true;
      break;
  }
  return { strategy, headers, query, text, chunked };
}

// ---------------------------------------------------------------------------------------------------------
// Requests

const ACCEPTS = [
  'text/html',
  'application/xml',
  'application/json;q=0',
  'text/*',
  '*/*',
  'application/*',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  ';;;,,,',
  'application/json;q=abc',
  'image/png, */*;q=0',
  'text/plain',
  'application/json, text/plain;q=0.5',
];

function garbageAuthorization(rng: Rng, ctx: FuzzContext): string | undefined {
  const [header = '', payload = '', signature = ''] = ctx.accessToken.split('.');
  const payloadJson = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Json;
  return rng.pick<string | undefined>([
    undefined,
    'garbage',
    'Bearer',
    'Bearer ',
    'Bearer a.b.c',
    `Bearer ${FALSE_TOKEN}`,
    'Basic dXNlcjpwYXNz',
    `Token ${ctx.accessToken}`,
    `Bearer ${ctx.accessToken}x`,
    `Bearer ${header}.${payload}.`,
    `Bearer ${header}.${b64url(JSON.stringify({ ...payloadJson, a: OTHER_ACCOUNT }))}.${signature}`,
    `Bearer ${b64url('{"alg":"none","typ":"JWT"}')}.${payload}.`,
    `Bearer ${b64url('{"alg":"none","typ":"JWT"}')}.${payload}.AAAA`,
    `Bearer ${'A'.repeat(5000)}.${payload}.${signature}`,
    `Bearer ${ctx.accessToken} ${ctx.accessToken}`,
    `Bearer  ${ctx.accessToken}`,
    `Bearer ${encodeURIComponent("' OR 1=1--")}`,
  ]);
}

/** The media types of an operation's success responses (what a client would Accept). */
function successTypes(op: OperationModel): string[] {
  const types = Object.entries(op.responses)
    .filter(([status]) => status.startsWith('2'))
    .flatMap(([, response]) => Object.keys((resolve(response).content as Json | undefined) ?? {}));
  return types.length > 0 ? [...new Set(types)] : ['application/json'];
}

/** The spec's example of a parameter, or the first known value for it: a coherent, valid request. */
function baselineValue(op: OperationModel, param: ParamModel, ctx: FuzzContext): string {
  const own = ctx.pools.get(`${op.id}.${param.name}`)?.[0];
  if (own !== undefined) return own;
  if (param.examples.length > 0) return String(param.examples[0]);
  const known = poolKeys(op, param)
    .map((key) => ctx.pools.get(key)?.[0])
    .find((v) => v !== undefined);
  return known ?? 'x';
}

/** A request the spec says must succeed (examples, a valid token): proves each operation reaches its handler. */
function baselineCase(op: OperationModel, ctx: FuzzContext): FuzzCase {
  let path = op.path;
  const query: string[] = [];
  for (const p of op.params) {
    const value = encodeURIComponent(baselineValue(op, p, ctx));
    if (p.in === 'path') path = path.replace(`{${p.name}}`, value);
    else if (p.in === 'query' && p.required) query.push(`${encodeURIComponent(p.name)}=${value}`);
  }
  const headers: Record<string, string | string[]> = { accept: successTypes(op).join(', ') };
  let body: string | undefined;
  if (op.body) {
    const type = op.body.contentTypes[0] ?? 'application/json';
    headers['content-type'] = type;
    const password = ctx.passwords[0] ?? {};
    const variant = op.body.variants.find((v) => 'password' in v.properties) ?? op.body.variants[0];
    const fields = Object.fromEntries(
      Object.entries(variant?.properties ?? {}).map(([name, property]) => [
        name,
        property.const !== undefined
          ? String(property.const)
          : (password[name] ?? String(((property.examples as unknown[] | undefined) ?? [''])[0])),
      ]),
    );
    body = type === 'application/json' ? JSON.stringify(fields) : formEncode(fields);
  }
  if (op.secured) headers.authorization = `Bearer ${ctx.accessToken}`;
  return {
    op,
    strategy: 'baseline',
    method: op.method,
    path: query.length > 0 ? `${path}?${query.join('&')}` : path,
    headers,
    ...(body !== undefined ? { body } : {}),
    validToken: op.secured,
  };
}

function buildCase(op: OperationModel, rng: Rng, ctx: FuzzContext): FuzzCase {
  const pathParams = op.params.filter((p) => p.in === 'path');
  const queryParams = op.params.filter((p) => p.in === 'query');
  const headers: Record<string, string | string[]> = {
    accept: rng.chance(0.9) ? successTypes(op).join(', ') : rng.pick(['*/*', 'application/json']),
  };
  const pathValues = new Map<string, string | null>(
    pathParams.map((p) => [p.name, encodeURIComponent(validValue(op, p, rng, ctx))]),
  );
  const query: [string, string][] = [];
  for (const p of queryParams) {
    if (p.required || rng.chance(0.5))
      query.push([encodeURIComponent(p.name), encodeURIComponent(validValue(op, p, rng, ctx))]);
  }
  let body: string | Uint8Array | undefined;
  let chunked = false;
  const strategies: (readonly [number, string])[] = [
    [15, 'valid'],
    [pathParams.length + queryParams.length > 0 ? 30 : 0, 'hostile-param'],
    [pathParams.length + queryParams.length > 1 ? 5 : 0, 'hostile-params'],
    [queryParams.length > 0 ? 6 : 0, 'type-confusion'],
    [op.params.some((p) => p.required) ? 5 : 0, 'missing-param'],
    [5, 'extra-params'],
    [5, 'duplicate-params'],
    [10, 'headers'],
    [pathParams.length > 0 ? 6 : 0, 'raw-path'],
    [op.body ? 70 : 0, 'body'],
    [op.body ? 0 : 3, 'body-on-get'],
  ];
  let strategy = rng.weighted(strategies);
  switch (strategy) {
    case 'hostile-param':
    case 'hostile-params': {
      const targets =
        strategy === 'hostile-params' ? [rng.pick(op.params), rng.pick(op.params)] : [rng.pick(op.params)];
      for (const p of targets) {
        const value = hostileValue(p, rng, ctx);
        if (p.in === 'path') pathValues.set(p.name, value.value === '' && !value.raw ? '' : encode(value));
        else if (p.in === 'query') {
          const key = encodeURIComponent(p.name);
          const rest = query.filter(([k]) => k !== key);
          query.splice(0, query.length, ...rest, [key, encode(value)]);
        }
      }
      break;
    }
    case 'type-confusion': {
      const p = rng.pick(queryParams);
      const key = encodeURIComponent(p.name);
      const rest = query.filter(([k]) => k !== key);
      query.splice(0, query.length, ...rest, ...typeConfusion(p.name, rng));
      break;
    }
    case 'missing-param': {
      const p = rng.pick(op.params.filter((q) => q.required));
      if (p.in === 'path') pathValues.set(p.name, rng.chance(0.5) ? '' : null);
      else query.splice(0, query.length, ...query.filter(([k]) => k !== encodeURIComponent(p.name)));
      break;
    }
    case 'extra-params':
      query.push(
        ...rng.pick<[string, string][]>([
          [['unknown', '1']],
          [['__proto__[polluted]', '1']],
          [['constructor[prototype][polluted]', '1']],
          [['a[b][c]', 'd']],
          [[encodeURIComponent("' OR 1=1--"), '1']],
          [['', '']],
          [['=', '=']],
          [['x', corpus.HUGE.slice(0, 8000)]],
          Array.from({ length: 300 }, (_, i): [string, string] => [`p${i}`, String(i)]),
        ]),
      );
      break;
    case 'duplicate-params': {
      const p = queryParams.length > 0 ? rng.pick(queryParams) : null;
      const name = p ? encodeURIComponent(p.name) : 'dup';
      const first = p ? encodeURIComponent(validValue(op, p, rng, ctx)) : '1';
      const second =
        p && rng.chance(0.5) ? encodeURIComponent(validValue(op, p, rng, ctx)) : encode(rng.pick(corpus.everything));
      query.push([name, first], [name, second]);
      break;
    }
    case 'headers': {
      const which = rng.pick(['accept', 'accept', 'request-id', 'content-encoding', 'host']);
      if (which === 'accept') headers.accept = rng.pick(ACCEPTS);
      if (which === 'request-id')
        headers['x-request-id'] = rng.pick(['', 'x'.repeat(8000), "' OR 1=1--", '../../etc/passwd', '\u0024{7*7}']);
      if (which === 'content-encoding') {
        headers['content-encoding'] = rng.pick(['gzip', 'br', 'identity, gzip', 'x-unknown']);
        if (op.body) {
          headers['content-type'] = op.body.contentTypes[0] ?? 'application/json';
          body = formEncode(validFields(op.body, rng, ctx));
        }
      }
      if (which === 'host') headers.host = rng.pick(['', 'evil.example', 'localhost:1', `${'a'.repeat(300)}.example`]);
      break;
    }
    case 'raw-path': {
      const p = rng.pick(pathParams);
      pathValues.set(p.name, rng.pick(corpus.traversal).value);
      break;
    }
    case 'body-on-get':
      headers['content-type'] = rng.pick(['application/json', 'text/plain', 'application/x-www-form-urlencoded']);
      body = rng.pick(['{"limit":1}', '{', 'limit=1', 'x'.repeat(20_000)]);
      break;
    case 'body': {
      const made = bodyCase(op.body as BodyModel, rng, ctx);
      strategy = made.strategy;
      Object.assign(headers, made.headers);
      query.push(...made.query);
      body = made.text;
      chunked = made.chunked;
      break;
    }
  }
  // Tokens: protected operations mostly with a valid one; any operation sometimes with none or garbage.
  const auth = op.secured
    ? rng.weighted<'valid' | 'garbage' | 'none'>([
        [60, 'valid'],
        [25, 'garbage'],
        [15, 'none'],
      ])
    : rng.weighted<'valid' | 'garbage' | 'none'>([
        [10, 'valid'],
        [10, 'garbage'],
        [80, 'none'],
      ]);
  let validToken = false;
  if (auth === 'valid') {
    headers.authorization = `${rng.pick(['Bearer', 'bearer', 'BEARER'])} ${ctx.accessToken}`;
    validToken = true;
  } else if (auth === 'garbage') {
    const value = garbageAuthorization(rng, ctx);
    if (value !== undefined) headers.authorization = value;
  }
  let path = op.path;
  for (const p of pathParams) {
    const value = pathValues.get(p.name);
    path = value === null ? path.replace(`/{${p.name}}`, '') : path.replace(`{${p.name}}`, value ?? '');
  }
  const search = query.map(([k, v]) => (v === '' && rng.chance(0.3) ? k : `${k}=${v}`)).join('&');
  return {
    op,
    strategy,
    method: op.method,
    path: search ? `${path}?${search}` : path,
    headers,
    ...(body !== undefined ? { body } : {}),
    chunked,
    validToken,
  };
}

/** Requests at no operation, and operations' paths with other methods. */
function routeCorpus(rng: Rng, ctx: FuzzContext): FuzzCase[] {
  const paths = [
    '/',
    '/v1',
    '/v1/',
    '/v1/platforms/',
    '//v1/platforms',
    '/V1/PLATFORMS',
    '/v1/platforms;jsessionid=1',
    '/v1/platforms%00',
    '/v1/platforms/..%2F..%2Fetc%2Fpasswd',
    '/v1/%2e%2e/%2e%2e/etc/passwd',
    '/v1/platforms/%2e%2e/',
    '/v1/platforms/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
    '/v1/../../etc/passwd',
    '/..%2F..%2Fetc%2Fpasswd',
    '/%2e%2e/%2e%2e/etc/passwd',
    '/.env',
    '/.git/config',
    '/server/dist/cli.js',
    '/node_modules/',
    '/v1/platforms?%',
    '/v1/platforms?limit=%zz',
    `/v1/${'a/'.repeat(500)}`,
    `/v1/${'x'.repeat(8000)}`,
    `/v1/platforms/${'x'.repeat(100_000)}`,
    '/v1/platforms#x',
    '/v1/platforms/ETH/extra',
    '/v1/movements/',
    '/v1/oauth2/token/',
    '/v1/oauth2/token/../token',
    '/documentation',
    '/docs/',
    '/docs/static/../../../../etc/passwd',
    '/docs/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
    '/openapi.json',
    '*',
  ];
  const cases: FuzzCase[] = paths.map((path) => ({
    op: null,
    strategy: 'route',
    method: rng.pick(['GET', 'GET', 'POST', 'HEAD']),
    path,
    headers: { accept: 'application/json' },
    validToken: false,
  }));
  for (const op of OPS) {
    for (const method of ['PUT', 'DELETE', 'PATCH', 'OPTIONS', op.method === 'GET' ? 'POST' : 'GET', 'HEAD', 'TRACE']) {
      if (method === op.method || (method === 'HEAD' && op.method === 'GET')) continue;
      const path = op.path.replace(/\{[^}]+\}/g, (name) => {
        const param = op.params.find((p) => `{${p.name}}` === name);
        return param ? encodeURIComponent(validValue(op, param, rng, ctx)) : 'x';
      });
      cases.push({
        op: null,
        strategy: `method-${method}`,
        method,
        path,
        headers: { accept: 'application/json', authorization: `Bearer ${ctx.accessToken}` },
        validToken: true,
      });
    }
  }
  return cases;
}

// ---------------------------------------------------------------------------------------------------------
// The run

let gateway: RunningGateway;
let pid: number | null = null;
let ctx: FuzzContext;

async function getJson(path: string, token?: string): Promise<Json> {
  const response = await fetch(`${gateway.url}${path}`, {
    headers: { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    signal: AbortSignal.timeout(5000),
  });
  return (await response.json()) as Json;
}

beforeAll(async () => {
  gateway = await startGateway();
  pid = gatewayPid(gateway.dataDir);
  const signer = signerFromSeed(DEMO_SEED);
  const { access_token } = await signIn(gateway.url, signer, nowSeconds() + 3600);
  const passwords = await Promise.all(
    Array.from({ length: 8 }, (_, i) => passwordGrant(signer, nowSeconds() + 900 + i)),
  );
  const refreshTokens: string[] = [];
  for (let i = 0; i < 24; i++) refreshTokens.push((await signIn(gateway.url, signer)).refresh_token);

  // What the server knows, read through the API itself.
  const items = (body: Json) => (body.items as Json[] | undefined) ?? [];
  const cursor = (body: Json) => (body.page_info as Json | undefined)?.last_cursor as string | undefined;
  const platforms = await getJson('/v1/platforms?limit=1');
  const allPlatforms = await getJson('/v1/platforms');
  const deposit = await getJson('/v1/deposit/currencies');
  const withdrawal = await getJson('/v1/withdraw/currencies');
  const movements = await getJson('/v1/movements?limit=2', access_token);
  const trades = await getJson(`/v1/addresses/${DEMO_ADDRESS}/trades/WAVES/USDT?limit=1`);
  const ids = (list: Json[], key: string) => [...new Set(list.map((i) => String(i[key])))];
  const currencies = [...new Set([...ids(items(deposit), 'id'), ...ids(items(withdrawal), 'id'), 'USDC', 'NOPE'])];
  const platformIds = [...ids(items(allPlatforms), 'id'), 'WAVES', 'SOL'];
  const cursors = [cursor(platforms), cursor(movements), cursor(trades)].filter((c): c is string => !!c);
  const movementIds = [
    ...ids(items(movements), 'id'),
    '3c91a395-4e62-4675-acb3-f24e47541e47',
    '00000000-0000-4000-8000-000000000000',
  ];
  ctx = {
    accessToken: access_token,
    passwords,
    refreshTokens,
    pools: new Map([
      ['CurrencyId', currencies],
      ['PlatformId', platformIds],
      ['LedgerAddress', [DEMO_ADDRESS, OTHER_ACCOUNT]],
      ['Cursor', cursors],
      ['getMovement.id', movementIds],
      [
        'address',
        [
          '0x3f2b1c25A5f23b193560B97988ee98cBDb480730',
          '0x3f2b1c25a5f23b193560b97988ee98cbdb480730',
          'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
          '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2',
          DEMO_ADDRESS,
        ],
      ],
      ['amount_currency_id', ['WAVES', 'USDT', 'BTC', 'ETH']],
      ['price_currency_id', ['USDT', 'WAVES', 'BTC']],
    ]),
  };
  expect(cursors.length, 'cursors harvested from the lists').toBeGreaterThanOrEqual(2);
  expect(movementIds.length).toBeGreaterThan(2);
}, 120_000);

afterAll(async () => {
  destroyAgent();
  await gateway?.stop('SIGKILL');
});

interface OperationStats {
  sent: number;
  answered: number;
  ok: number;
  clientErrors: number;
}

const BASELINE_COPIES = 2;
const stats = new Map<string, OperationStats>();
const violations: Violation[] = [];
let afterRun: RawAnswer;
let aliveAfterRun: boolean | null = null;

/** Sends the whole generated run once; the tests below look at it from several sides. */
async function runFuzz(): Promise<void> {
  const started = Date.now();
  const rng = createRng(SEED);
  const cases: FuzzCase[] = [];
  for (const op of OPS) {
    const opRng = rng.fork(op.id);
    for (let i = 0; i < BASELINE_COPIES; i++) cases.push(baselineCase(op, ctx));
    for (let i = BASELINE_COPIES; i < COUNT; i++) cases.push(buildCase(op, opRng, ctx));
  }
  cases.push(...routeCorpus(rng.fork('routes'), ctx));
  const statuses = new Map<number, number>();
  const answers = await pool(
    cases.map((c) => async (): Promise<[FuzzCase, RawAnswer]> => {
      const answer = await rawRequest(gateway.url, {
        method: c.method,
        path: c.path,
        headers: c.headers,
        ...(c.body !== undefined ? { body: c.body } : {}),
        chunked: c.chunked ?? false,
        timeoutMs: 5000,
      });
      return [c, answer];
    }),
    CONCURRENCY,
  );
  for (const [c, answer] of answers) {
    const target = c.op?.id ?? '(route)';
    const s = stats.get(target) ?? { sent: 0, answered: 0, ok: 0, clientErrors: 0 };
    s.sent++;
    if (answer.status > 0) s.answered++;
    if (answer.status >= 200 && answer.status < 300) s.ok++;
    if (answer.status >= 400 && answer.status < 500) s.clientErrors++;
    stats.set(target, s);
    statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
    if (answer.error?.startsWith('client refused')) continue; // Node would not send it: not the server's doing
    const request: SentRequest = {
      target,
      strategy: c.strategy,
      method: c.method,
      path: c.path,
      contentType: [c.headers['content-type']].flat()[0],
      validToken: c.validToken,
      bodyBytes: c.body === undefined ? 0 : Buffer.byteLength(c.body),
    };
    const problems = answerProblems(OPS, request, answer);
    if (problems.length > 0) violations.push({ request, status: answer.status, problems, excerpt: excerptOf(answer) });
  }
  afterRun = await rawRequest(gateway.url, {
    method: 'GET',
    path: '/v1/platforms',
    headers: { accept: 'application/json' },
  });
  aliveAfterRun = pid === null ? null : isAlive(pid);
  const total = [...stats.values()].reduce((n, s) => n + s.sent, 0);
  console.log(
    `fuzz: seed ${SEED}, ${COUNT} per operation, ${total} requests in ${((Date.now() - started) / 1000).toFixed(1)} s; ` +
      `statuses ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}`,
  );
  console.table(Object.fromEntries(stats));
  recordFigures('fuzz', {
    seed: SEED,
    perOperation: COUNT,
    requests: total,
    serverErrors: violations.filter(isServerError).length,
    hangs: violations.filter(isHang).length,
    violations: violations.filter(isContract).length,
    statuses: Object.fromEntries(statuses),
  });
  if (violations.length > 0) console.log(describeViolations(violations, Number(process.env.FUZZ_SAMPLES ?? 2)));
}

const isHang = (v: Violation) => v.status <= 0;
const isServerError = (v: Violation) => v.status >= 500;
const isContract = (v: Violation) => !isHang(v) && !isServerError(v);

describe(`fuzzing every operation of the spec (seed ${SEED}, ${COUNT} requests per operation)`, () => {
  beforeAll(runFuzz, 240_000);

  it('sent every operation its share of requests, and valid ones reached its handler', () => {
    for (const op of OPS) {
      const s = stats.get(op.id);
      expect(s?.sent ?? 0, `${op.id}: requests sent`).toBeGreaterThanOrEqual(COUNT);
      expect(s?.answered ?? 0, `${op.id}: requests answered`).toBeGreaterThanOrEqual(Math.floor(COUNT * 0.9));
      expect(s?.ok ?? 0, `${op.id}: 2xx answers`).toBeGreaterThanOrEqual(BASELINE_COPIES);
      if (COUNT >= 50) expect(s?.clientErrors ?? 0, `${op.id}: 4xx answers`).toBeGreaterThan(0);
    }
  });

  it('never answers with a 5xx', () => {
    const found = violations.filter(isServerError);
    expect(found.length, describeViolations(found)).toBe(0);
  });

  it('never hangs (5 s) or drops the connection', () => {
    const found = violations.filter(isHang);
    expect(found.length, describeViolations(found)).toBe(0);
  });

  it('answers 2xx as the spec documents, 4xx in the error body with catalogue codes of that status', () => {
    const found = violations.filter(isContract);
    expect(found.length, describeViolations(found)).toBe(0);
  });

  it('is still alive and serving afterwards', () => {
    expect(afterRun.status, `GET /v1/platforms after the run: ${afterRun.error ?? excerptOf(afterRun)}`).toBe(200);
    if (aliveAfterRun !== null) expect(aliveAfterRun, 'the server process is alive').toBe(true);
  });
});
