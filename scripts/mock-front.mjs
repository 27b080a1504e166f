// A thin front of the Prism mock, so that a web page works against it as against the server. Prism picks
// a response by the `Prefer` header only; this front adds the two choices a page needs:
//
// - a failure on demand for any request, event streams included: `Prefer: code=401` (or 5xx) with
//   `Accept: text/event-stream`, which clients always send for a stream, is answered with the documented
//   JSON error (Prism would find no event-stream body for it and answer the stream with 200);
// - paging that ends: a request with `after` is answered with the operation's `next_page` example (the
//   last page, with other items) instead of the first page again, so "load more" never repeats rows.
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

/** The operations of the document, each with a matcher of its path template. */
function operationsOf(document) {
  const operations = [];
  for (const [template, item] of Object.entries(document.paths ?? {})) {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    for (const [method, operation] of Object.entries(item)) {
      const examples = operation?.responses?.['200']?.content?.['application/json']?.examples ?? {};
      operations.push({ method: method.toUpperCase(), pattern, hasNextPage: 'next_page' in examples });
    }
  }
  return operations;
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
    const forward = http.request(
      { host: target.hostname, port: target.port, method: request.method, path: request.url, headers },
      (answer) => {
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
