#!/usr/bin/env node
/**
 * The floor of a PostgreSQL read (bench/postgres-floor.mjs): a bare Fastify route (as lib/bare.mjs) that runs
 * the gateway's own SQL on every request, through a `pg` pool of the store's settings (server/src/store/
 * store.ts, openStore), and answers the rows as the gateway does. No validation, no hooks, no bearer check:
 * what any server of these reads must do.
 *
 * - A page (`page` set): the query as the store's `firstColumn` runs it (rowMode `array`, the statement named
 *   by the server's own statementNames when `named`, unnamed otherwise, as with DATABASE_POOL_MODE=transaction),
 *   its first `limit` documents joined into the list's text (listOfDocuments: the page_info the gateway gave).
 * - A single document: the query as `firstColumn` runs it too (named when `named`), the first column of its
 *   row sent as it is.
 *
 * Each route runs its captured query with its captured values, whatever the request's path parameters.
 *
 * `gatewayHeaders`: the floor also writes the headers every signed-in answer of the gateway carries
 * (lib/gateway-headers.mjs): the same HTTP answer as the gateway's, headers and all, so that what the gateway
 * spends over this floor is its own work and not its answer's (bench/postgres-floor.md).
 *
 *   node bench/lib/pg-floor.mjs config.json PORT
 *   config: { url, poolSize, named, gatewayHeaders?, routes: [{ path, sql, parameters, page?: { limit, pageInfo (JSON text) } }] }
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import pg from 'pg';
import { statementNames } from '../../server/dist/store/statements.js';
import { writeGatewayHeaders } from './gateway-headers.mjs';

const [file, port] = process.argv.slice(2);
const config = JSON.parse(readFileSync(file, 'utf8'));
const pool = new pg.Pool({
  connectionString: config.url,
  max: config.poolSize,
  connectionTimeoutMillis: 5000,
  statement_timeout: 10_000,
});
pool.on('error', () => {});
pool.on('connect', (client) => client.on('error', () => {}));
const nameOf = config.named ? statementNames() : () => undefined;
const JSON_TYPE = 'application/json; charset=utf-8';

const app = Fastify({ logger: false });
if (config.gatewayHeaders) await writeGatewayHeaders(app, { noStore: true });
for (const route of config.routes) {
  if (route.page) {
    const { limit, pageInfo } = route.page;
    const name = nameOf(route.sql);
    app.get(route.path, async (_request, reply) => {
      const { rows } = await pool.query({ text: route.sql, values: route.parameters, rowMode: 'array', name });
      const documents = rows.slice(0, limit).map((row) => row[0]);
      reply.type(JSON_TYPE);
      return `{"type":"list","page_info":${pageInfo},"items":[${documents.join(',')}]}`;
    });
  } else {
    const name = nameOf(route.sql);
    app.get(route.path, async (_request, reply) => {
      const { rows } = await pool.query({ text: route.sql, values: route.parameters, rowMode: 'array', name });
      if (rows.length === 0) return reply.code(404).send();
      reply.type(JSON_TYPE);
      return rows[0][0];
    });
  }
}
await app.listen({ port: Number(port), host: '127.0.0.1' });
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, () =>
    app
      .close()
      .then(() => pool.end())
      .then(() => process.exit(0)),
  );
}
