#!/usr/bin/env node
/**
 * The stack's limit: a bare Fastify server answering each benchmarked path with the JSON the gateway gave
 * for it, held in memory (parsed: it is serialized on every request, as the gateway's answers are).
 * No validation, no database, no hooks. With `--gateway-headers`, one hook adds the headers every gateway
 * answer carries (a request id and the security headers, the gateway's own values): what they alone cost.
 *
 *   node bench/lib/bare.mjs payloads.json PORT [--gateway-headers]     payloads.json: { "/path": <json body>, ... }
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import { writeGatewayHeaders } from './gateway-headers.mjs';

const [file, port, flag] = process.argv.slice(2);
const payloads = JSON.parse(readFileSync(file, 'utf8'));
const app = Fastify({ logger: false });
if (flag === '--gateway-headers') await writeGatewayHeaders(app, { noStore: false });
for (const [url, body] of Object.entries(payloads)) {
  app.get(url.split('?')[0], async () => body);
}
await app.listen({ port: Number(port), host: '127.0.0.1' });
for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => app.close().then(() => process.exit(0)));
