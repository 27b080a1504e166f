#!/usr/bin/env node
/**
 * The event streams' load process (forked with an IPC channel by bench/lib/events.mjs): opens one
 * `GET /v1/events` stream per account of ACCOUNTS_FILE (node:http, one socket each), waits for each stream's
 * opening `id:` line, then records every `event: movement` it receives (the stream, the event id, the
 * movement's id and account, the receipt time) until told to report.
 *
 *   messages in:  { type: 'collect', expected, timeoutMs, graceMs }
 *   messages out: { type: 'open', streams, failed, seconds, firstIds }, { type: 'receipts', ... }
 *
 *   node bench/lib/sse-load.mjs BASE_URL ACCOUNTS_FILE [CONCURRENCY]
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';

const [baseUrl, accountsFile, concurrencyArg = '250'] = process.argv.slice(2);
const accounts = JSON.parse(readFileSync(accountsFile, 'utf8'));
const url = new URL('/v1/events', baseUrl);
const agent = new http.Agent({ keepAlive: true, maxSockets: accounts.length + 100 });
const now = () => performance.timeOrigin + performance.now();

/** Every movement event received: [stream index, event id, movement id, movement account, receipt ms]. */
const receipts = [];
const other = { kinds: {}, ended: 0, errors: 0 };
const startIds = new Array(accounts.length).fill(null);

function open(index) {
  const { token } = accounts[index];
  return new Promise((resolve, reject) => {
    const request = http.get(
      url,
      { agent, headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } },
      (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          reject(new Error(`stream ${index}: ${response.statusCode}`));
          return;
        }
        response.setEncoding('utf8');
        let buffer = '';
        response.on('data', (chunk) => {
          const at = now();
          buffer += chunk;
          let cut = buffer.indexOf('\n\n');
          while (cut !== -1) {
            const block = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            let kind = 'message';
            let id = null;
            let data = null;
            for (const line of block.split('\n')) {
              if (line.startsWith('event: ')) kind = line.slice(7);
              else if (line.startsWith('id: ')) id = line.slice(4);
              else if (line.startsWith('data: ')) data = line.slice(6);
            }
            if (data === null && id !== null && startIds[index] === null) {
              startIds[index] = id;
              resolve();
            } else if (kind === 'movement' && data !== null) {
              const movement = JSON.parse(data);
              receipts.push([index, id, movement.id, movement.account, at]);
            } else if (data !== null || kind !== 'message') {
              other.kinds[kind] = (other.kinds[kind] ?? 0) + 1;
            }
            cut = buffer.indexOf('\n\n');
          }
        });
        response.on('end', () => {
          other.ended++;
        });
        response.on('error', () => {
          other.errors++;
        });
      },
    );
    request.on('error', reject);
  });
}

const started = now();
let next = 0;
let failed = 0;
const failures = [];
await Promise.all(
  Array.from({ length: Number(concurrencyArg) }, async () => {
    while (next < accounts.length) {
      const i = next++;
      await open(i).catch((error) => {
        failed++;
        if (failures.length < 5) failures.push(error.message);
      });
    }
  }),
);
const ids = startIds.filter((id) => id !== null);
process.send({
  type: 'open',
  streams: ids.length,
  failed,
  failures,
  seconds: (now() - started) / 1000,
  firstIds: { min: Math.min(...ids.map(Number)), max: Math.max(...ids.map(Number)) },
});

process.on('message', async (message) => {
  if (message.type !== 'collect') return;
  const deadline = now() + message.timeoutMs;
  while (receipts.length < message.expected && now() < deadline) await new Promise((r) => setTimeout(r, 20));
  // A little longer: duplicates or stray events would arrive after the expected count.
  await new Promise((r) => setTimeout(r, message.graceMs));
  process.send({ type: 'receipts', receipts, other, streamsOpen: ids.length - other.ended });
  agent.destroy();
  setTimeout(() => process.exit(0), 100);
});
