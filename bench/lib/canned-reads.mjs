#!/usr/bin/env node
/**
 * The signed-in reads of bench/postgres-floor.mjs without a database, for counting the instructions of the
 * gateway's own work around the SQL (bench/instructions.mjs --only reads): the gateway of a build
 * (`buildApp`, every plugin and check) or the floor (lib/pg-floor.mjs's routes), both over a store whose
 * query answers canned documents one microtask later. The documents are the movements of the build's demo
 * exchange, newest first, repeated to fill a page of 100 and one more.
 *
 *   node bench/lib/canned-reads.mjs gateway|floor|floor-headers PORT OUT.json [SERVER_DIST]
 *
 * floor-headers: the floor writing the headers every signed-in answer of the gateway carries besides (its
 * request id, the security headers, `Cache-Control: no-store`), the gateway's own values, in one hook: what
 * they alone cost, out of what the gateway spends over the floor.
 *
 * OUT.json gets `{ token, id }`: the gateway's access token for the demo account (null for the floor), the
 * id of the movement `GET /v1/movements/{id}` asks for. SERVER_DIST: the build's server/dist (this checkout's by default).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { signerFromSeed } from '@gateway/client';
import Fastify from 'fastify';
import { ROOT } from './common.mjs';
import { writeGatewayHeaders } from './gateway-headers.mjs';
import { injectedAccessToken } from './inject-grant.mjs';

const [mode, port, out, distArg] = process.argv.slice(2);
const dist = pathToFileURL(path.resolve(distArg ?? path.join(ROOT, 'server/dist'))).href;
const { buildApp } = await import(`${dist}/app.js`);
const { loadConfig } = await import(`${dist}/config.js`);
const { openStore } = await import(`${dist}/store/store.js`);
const { loadDemoIfEmpty } = await import(`${dist}/operator/commands.js`);

const DEMO_SEED = 'uncle push human bus echo drastic garden joke sand warfare sentence fossil title color combine';
const PAGE = 100;
const JSON_TYPE = 'application/json; charset=utf-8';

const store = openStore('sqlite::memory:');
await store.migrate();
await loadDemoIfEmpty(store, 'W');
const signer = signerFromSeed(DEMO_SEED);
const demo = await store.db
  .selectFrom('movements')
  .select('document')
  .orderBy('created_at', 'desc')
  .orderBy('id', 'desc')
  .execute();
const documents = Array.from({ length: PAGE + 1 }, (_, i) => demo[i % demo.length].document);
const id = JSON.parse(documents[0]).id;
const later = () => Promise.resolve();

let app;
let token = null;
if (mode === 'floor' || mode === 'floor-headers') {
  // lib/pg-floor.mjs's two routes, the query answered from memory.
  const rows = async (single) => {
    await later();
    return { rows: (single ? documents.slice(0, 1) : documents).map((document) => [document]) };
  };
  const pageInfo = JSON.stringify({ has_next_page: true, last_cursor: 'x'.repeat(110) });
  app = Fastify({ logger: false });
  if (mode === 'floor-headers') await writeGatewayHeaders(app, { noStore: true, dist: distArg });
  app.get('/v1/movements', async (_request, reply) => {
    const page = (await rows(false)).rows.slice(0, PAGE).map((row) => row[0]);
    reply.type(JSON_TYPE);
    return `{"type":"list","page_info":${pageInfo},"items":[${page.join(',')}]}`;
  });
  app.get('/v1/movements/:id', async (_request, reply) => {
    const found = (await rows(true)).rows;
    if (found.length === 0) return reply.code(404).send();
    reply.type(JSON_TYPE);
    return found[0][0];
  });
} else {
  const config = loadConfig(
    {
      DATABASE_URL: 'sqlite::memory:',
      DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'canned-reads-')),
      LOG_LEVEL: 'warn',
      CHAIN_ID: 'W',
      CLIENT_IDS: 'waves.exchange,wx.network',
      CONNECTIONS_PER_ADDRESS: '0',
      SIGN_INS_PER_ADDRESS_HOUR: '0',
      OTEL_SDK_DISABLED: 'true',
    },
    false,
  );
  app = await buildApp(config, { store });
  token = await injectedAccessToken(app, signer, 86_400);
  // The database, answered from memory: a page's query (it has a limit) gets every document, one movement's
  // the first. The gateway's handlers, cursor and byte bound run on them as on PostgreSQL's rows.
  store.firstColumn = async (query) => {
    await later();
    return /\blimit\b/i.test(query.sql) ? documents : documents.slice(0, 1);
  };
}
writeFileSync(out, JSON.stringify({ token, id }));
await app.listen({ port: Number(port), host: '127.0.0.1' });
process.once('SIGTERM', () => process.exit(0));
