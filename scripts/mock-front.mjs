// A thin front of the Prism mock, so that a web page works against it as against the server. Prism picks
// a response by the `Prefer` header only; this front adds the two choices a page needs:
//
// - a failure on demand for any request, event streams included: `Prefer: code=401` (or 5xx) with
//   `Accept: text/event-stream`, which clients always send for a stream, is answered with the documented
//   JSON error (Prism would find no event-stream body for it and answer the stream with 200);
// - paging that ends: a request with `after` is answered with the operation's `next_page` example (the
//   last page, with other items) instead of the first page again, so "load more" never repeats rows;
// - an invalid request's 400 body that says what is wrong: Prism answers the first 400 example (the
//   generic one) and lists the violations in its `sl-violations` header; the front answers an ErrorBody
//   built from the first violation as the server words it (10200 missing or 10201 invalid parameter,
//   `querystring/limit must be integer`, `details.parameter`), unless a status or example was asked for.
//
// Everything else, preflights included, passes through to Prism unchanged, streamed both ways.
import http from 'node:http';

/** `code=401, example=x` → { code: '401', example: 'x' } (Prism's own syntax). */
export function parsePrefer(value) {
  const prefer = {};
  for (const part of String(value ?? '').split(/[,;]/)) {
    const [key, ...rest] = part.split('=');
    if (key?.trim() && rest.length > 0) prefer[key.trim().toLowerCase()] = rest.join('=').trim();
  }
  return prefer;
}

/** `node` with its `$ref`s (local ones, `#/…`) followed. */
function resolve(document, node) {
  let at = node;
  for (let hops = 0; typeof at?.$ref === 'string' && at.$ref.startsWith('#/') && hops < 16; hops += 1) {
    at = at.$ref
      .slice(2)
      .split('/')
      .reduce((parent, key) => parent?.[key.replaceAll('~1', '/').replaceAll('~0', '~')], document);
  }
  return at;
}

/** The operations of the document, each with a matcher of its path template and its body schemas. */
function operationsOf(document) {
  const operations = [];
  for (const [template, item] of Object.entries(document.paths ?? {})) {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    for (const [method, operation] of Object.entries(item)) {
      if (method === 'parameters') continue;
      const examples = operation?.responses?.['200']?.content?.['application/json']?.examples ?? {};
      const content = resolve(document, operation?.requestBody)?.content ?? {};
      const bodies = Object.fromEntries(
        Object.entries(content).map(([type, media]) => [type, resolve(document, media?.schema)]),
      );
      operations.push({ method: method.toUpperCase(), pattern, hasNextPage: 'next_page' in examples, bodies });
    }
  }
  return operations;
}

/** The error catalogue of the document (`ErrorCode`'s `x-codes`): name → { code, message }. */
function catalogueOf(document) {
  const codes = resolve(document, document.components?.schemas?.ErrorCode)?.['x-codes'] ?? [];
  return Object.fromEntries(
    codes.map((entry) => [entry.name, { code: entry.code, message: String(entry.description ?? '').trim() }]),
  );
}

/** Where a violation is, in the server's words (Fastify's validation contexts). */
const CONTEXTS = { query: 'querystring', path: 'params', header: 'headers', body: 'body' };

/** One of Prism's violations (`sl-violations`) as the server's error item. */
function itemOf(violation, catalogue) {
  const [, place = 'request', ...path] = violation.location ?? [];
  const where = CONTEXTS[place] ?? place;
  const text = String(violation.message ?? '');
  const required = violation.code === 'required' ? /required property '([^']+)'/.exec(text)?.[1] : undefined;
  const parameter = required ?? path[0] ?? where;
  if (required) {
    return {
      code: catalogue.missing_parameter?.code ?? 10200,
      message: `${where}/${parameter} is required`,
      details: { parameter },
    };
  }
  const at = text.indexOf(' must ');
  return {
    code: catalogue.invalid_parameter?.code ?? 10201,
    message: `${where}/${parameter} ${at >= 0 ? text.slice(at + 1) : 'is invalid'}`.slice(0, 1024),
    details: { parameter },
  };
}

/** A request body as an object (form or JSON), or undefined. */
function parseBody(type, text) {
  if (type === 'application/x-www-form-urlencoded') return Object.fromEntries(new URLSearchParams(text));
  if (type === 'application/json') {
    try {
      return JSON.parse(text);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * The error item of an invalid request: from its first violation, or, for a body of tagged `oneOf` branches
 * (the token request's `grant_type`), as the server tells them apart: a missing or unknown tag, else the
 * first violation of the branch the tag names.
 */
export function errorOfViolations(violations, { document, method, pathname, contentType, body }) {
  const catalogue = catalogueOf(document);
  const errors = violations.filter((v) => v?.severity === undefined || v.severity === 'Error');
  if (errors.length === 0) return undefined;
  const type = String(contentType ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();
  const operation = operationsOf(document).find((o) => o.method === method && o.pattern.test(pathname));
  const schema = operation?.bodies?.[type];
  const values = body ? parseBody(type, body) : undefined;
  const branches = (schema?.oneOf ?? []).map((branch) => resolve(document, branch));
  const tagged = branches.filter((branch) => branch?.properties !== undefined);
  const tag = Object.keys(tagged[0]?.properties ?? {}).find((name) =>
    tagged.every((branch) => resolve(document, branch.properties?.[name])?.const !== undefined),
  );
  if (tag && values && typeof values === 'object' && Object.keys(values).length > 0) {
    const value = values[tag];
    if (value === undefined) {
      return {
        code: catalogue.missing_parameter?.code ?? 10200,
        message: `body/${tag} is required`,
        details: { parameter: tag },
      };
    }
    const branch = tagged.find((b) => resolve(document, b.properties?.[tag])?.const === value);
    if (!branch) {
      const unknown = catalogue[schema['x-unknown-tag-error']];
      return unknown
        ? { code: unknown.code, message: unknown.message }
        : {
            code: catalogue.invalid_parameter?.code ?? 10201,
            message: `body/${tag} is not one of the allowed values`,
            details: { parameter: tag },
          };
    }
    const own = errors.find((v) => {
      if (v.location?.[1] !== 'body' || v.code === 'oneOf') return false;
      const required = v.code === 'required' ? /required property '([^']+)'/.exec(String(v.message))?.[1] : undefined;
      if (required) return (branch.required ?? []).includes(required);
      const property = v.location[2];
      return property !== undefined && property !== tag && property in (branch.properties ?? {});
    });
    if (own) return itemOf(own, catalogue);
  }
  return itemOf(errors[0], catalogue);
}

/** The `sl-violations` header of a Prism answer, parsed ([] when absent or unreadable). */
function violationsOf(header) {
  try {
    const parsed = JSON.parse(String(header ?? '[]'));
    return Array.isArray(parsed) ? parsed : [];
  } catch {
    return [];
  }
}

/** The headers to send Prism for a request (those of the request, with the front's choices). */
export function upstreamHeaders(method, url, headers, operations) {
  const prefer = parsePrefer(headers.prefer);
  const out = { ...headers };
  if (prefer.code && !prefer.code.startsWith('2')) {
    // Errors are JSON whatever the operation streams on success.
    out.accept = 'application/json';
  } else if (!prefer.example && !prefer.code && url.searchParams.has('after')) {
    const operation = operations.find((o) => o.method === method && o.pattern.test(url.pathname));
    if (operation?.hasNextPage)
      out.prefer = headers.prefer ? `${headers.prefer}, example=next_page` : 'example=next_page';
  }
  return out;
}

/** An HTTP server in front of the Prism mock at `upstream` (`http://127.0.0.1:<port>`). */
export function mockFront({ upstream, document }) {
  const operations = operationsOf(document);
  const target = new URL(upstream);
  return http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://mock');
    const headers = upstreamHeaders(request.method ?? 'GET', url, request.headers, operations);
    const prefer = parsePrefer(request.headers.prefer);
    // The body as sent (its first 64 KiB), for the error of an invalid one.
    let body = '';
    request.on('data', (chunk) => {
      if (body.length < 65_536) body += chunk.toString();
    });
    const forward = http.request(
      { host: target.hostname, port: target.port, method: request.method, path: request.url, headers },
      (answer) => {
        const violations =
          answer.statusCode === 400 && !prefer.code && !prefer.example
            ? violationsOf(answer.headers['sl-violations'])
            : [];
        const item =
          violations.length > 0
            ? errorOfViolations(violations, {
                document,
                method: request.method ?? 'GET',
                pathname: url.pathname,
                contentType: request.headers['content-type'],
                body,
              })
            : undefined;
        if (item) {
          answer.resume();
          const text = JSON.stringify({ errors: [item] });
          const { 'content-length': _length, 'transfer-encoding': _encoding, ...rest } = answer.headers;
          response.writeHead(400, {
            ...rest,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(text),
          });
          response.end(text);
          return;
        }
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    forward.on('error', () => {
      if (!response.headersSent) response.writeHead(502, { 'content-type': 'text/plain' });
      response.end('the mock (Prism) did not answer\n');
    });
    // A client that leaves ends its request to Prism too (an event stream left open otherwise).
    response.on('close', () => forward.destroy());
    request.pipe(forward);
  });
}
