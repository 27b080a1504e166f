#!/usr/bin/env node
/**
 * The stack's limit: a bare Fastify server answering each benchmarked path with the JSON the gateway gave
 * for it, held in memory (parsed: it is serialized on every request, as the gateway's answers are).
 * No validation, no database, no hooks.
 *
 *   node bench/lib/bare.mjs payloads.json PORT     payloads.json: { "/path": <json body>, ... }
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const [file, port] = process.argv.slice(2);
const payloads = JSON.parse(readFileSync(file, 'utf8'));
const app = Fastify({ logger: false });
for (const [url, body] of Object.entries(payloads)) {
  app.get(url.split('?')[0], async () => body);
}
await app.listen({ port: Number(port), host: '127.0.0.1' });
for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => app.close().then(() => process.exit(0)));
