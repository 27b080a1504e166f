/**
 * One connection that pipelines and never reads, against the real server under `npm start`'s settings (160
 * MiB heap, the default bounds): it writes 1,000 `GET /openapi.json` (about 125 KiB each) and reads nothing.
 * Every one of them once became an answer held in the process, and 3 to 9 s later the process died ("Reached
 * heap limit"). A connection owes at most 16 answers at once: the 17th request ends it, the rest are
 * refused unread. Five such connections one after the other: each is ended, another client is answered 200
 * meanwhile, nothing is owed after, and the process lives. A client that pipelines a few requests and reads
 * them gets every answer.
 *
 *   cd test && CI= npx vitest run attack/hostile-pipelining
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordFigures } from '../src/figures.js';
import { type RunningGateway, startGateway } from '../src/gateway.js';
import { getFrom, metricsOf, sleep } from './support/owed.js';
import { gatewayPid, isAlive } from './support/process.js';

/** `npm start`'s heap (package.json "start"). */
const HEAP = '--max-old-space-size=160 --max-semi-space-size=16';
const PIPELINED = 1_000;
const ROUNDS = 5;
const ENDED = 'gateway_requests_shed_total{reason="answersOwedPerConnection"}';
const ATTACKER = '127.0.0.1';
const OTHER = '127.0.0.2';

/** Resolves true once `done()` holds, false past `ms`. */
async function within(ms: number, done: () => Promise<boolean>): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
  return true;
}

describe('one connection that pipelines and never reads', () => {
  let gateway: RunningGateway;
  let pid: number;
  const figures = { connections: 0, requests: 0, notEnded: 0, otherRefused: 0, owedAfter: 0 };
  beforeAll(async () => {
    gateway = await startGateway({ NODE_OPTIONS: HEAP });
    pid = gatewayPid(gateway.dataDir) ?? 0;
  });
  afterAll(async () => {
    recordFigures('hostile-pipelining', {
      check: 'pipelined requests never read, from one connection',
      tried: `${figures.connections} connections x ${PIPELINED} pipelined GET /openapi.json, unread (160 MiB heap)`,
      accepted: figures.notEnded + figures.otherRefused + figures.owedAfter,
      alive: isAlive(pid),
      ...figures,
    });
    await gateway?.stop();
  });

  it(`${ROUNDS} connections writing ${PIPELINED} GET /openapi.json each, never reading: each ended, others answered, the process lives`, async () => {
    const url = gateway.url;
    const port = Number(new URL(url).port);
    for (let round = 0; round < ROUNDS; round++) {
      const endedBefore = (await metricsOf(url, OTHER)).get(ENDED) ?? 0;
      const socket = net.connect({ host: '127.0.0.1', port, localAddress: ATTACKER });
      socket.pause();
      socket.on('error', () => {});
      socket.write('GET /openapi.json HTTP/1.1\r\nHost: gateway\r\n\r\n'.repeat(PIPELINED));
      figures.connections += 1;
      figures.requests += PIPELINED;
      try {
        // The server ends it (a client that never reads does not see that): its refusals are counted.
        const ended = await within(20_000, async () => ((await metricsOf(url, OTHER)).get(ENDED) ?? 0) > endedBefore);
        if (!ended) figures.notEnded += 1;
        const other = await getFrom(url, '/v1/platforms', OTHER);
        if (other.status !== 200) figures.otherRefused += 1;
        console.log(`round ${round + 1}: ended ${ended}, another client ${other.status}, alive ${isAlive(pid)}`);
        expect(ended).toBe(true);
        expect(other.status).toBe(200);
      } finally {
        socket.destroy();
      }
    }
    const owed = await within(
      10_000,
      async () => (await metricsOf(url, OTHER)).get('gateway_unsent_answer_bytes') === 0,
    );
    if (!owed) figures.owedAfter += 1;
    const serving = await getFrom(url, '/health/serving', OTHER);
    expect(owed).toBe(true);
    expect(serving.status).toBe(200);
    expect(isAlive(pid)).toBe(true);
  }, 180_000);

  it('a client that pipelines a few requests and reads them gets every answer, in order', async () => {
    const port = Number(new URL(gateway.url).port);
    const socket = net.connect({ host: '127.0.0.1', port, localAddress: OTHER });
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => {});
    const paths = ['/openapi.json', '/v1/platforms', '/health/live', '/openapi.json', '/v1/platforms'];
    socket.write(
      paths
        .map(
          (p, i) =>
            `GET ${p} HTTP/1.1\r\nHost: gateway\r\n${i === paths.length - 1 ? 'Connection: close\r\n' : ''}\r\n`,
        )
        .join(''),
    );
    await closed;
    const statuses = [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => m[1]);
    expect(statuses).toEqual(paths.map(() => '200'));
  });
});
