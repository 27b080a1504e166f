#!/usr/bin/env node
/**
 * The tracing scenario's collector: an OTLP/HTTP endpoint that takes every export and discards it (a real
 * collector's work is not the gateway's), counting the posts, bytes and spans. `node otlp-sink.mjs PORT`;
 * on SIGTERM it prints `{ posts, bytes, spans }` as one JSON line and exits.
 */
import http from 'node:http';

const port = Number(process.argv[2]);
const received = { posts: 0, bytes: 0, spans: 0 };
const SPAN = /"spanId"/g;

const server = http.createServer((request, response) => {
  let body = '';
  request.setEncoding('utf8');
  request.on('data', (chunk) => {
    body += chunk;
  });
  request.on('end', () => {
    received.posts += 1;
    received.bytes += Buffer.byteLength(body);
    // A span has one `spanId` (its parent's is `parentSpanId`): counted without parsing.
    received.spans += body.match(SPAN)?.length ?? 0;
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end('{}');
  });
});
server.listen(port, '127.0.0.1');
process.once('SIGTERM', () => {
  process.stdout.write(`${JSON.stringify(received)}\n`);
  server.close();
  process.exit(0);
});
