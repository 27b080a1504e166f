/**
 * A 10 s PostgreSQL outage under two instances: public catalogue reads keep answering 200 from the catalogue
 * in memory (saying how old it is), operations that need the database answer 503 with Retry-After, the
 * serving state says `degraded` where readiness says 503, and each instance logs the outage in two lines (and
 * two for each of its LISTEN connections).
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { recordFigures } from '../src/figures.js';
import { type RunningGateway, startGateway } from '../src/gateway.js';
import { createDatabase } from '../src/postgres.js';
import { startTcpProxy } from '../src/tcp-proxy.js';

const OUTAGE_MS = 10_000;
const PUBLIC_READS = [
  '/v1/platforms',
  '/v1/platforms/ETH',
  '/v1/deposit/currencies/USDT/ETH',
  '/v1/withdraw/currencies?limit=100',
  '/v1/apy/staking/WAVES',
];
const faults: { fault: string; lost: number }[] = [];
afterAll(() => {
  recordFigures('outage', { injected: faults.length, lost: faults.reduce((n, f) => n + f.lost, 0), faults });
});

interface Outcome {
  phase: 'before' | 'down' | 'after';
  path: string;
  status: number;
  age: string | null;
  retryAfter: string | null;
}

describe('a 10 s PostgreSQL outage under two instances', () => {
  it('keeps public reads at 200 from memory, refuses the rest with 503, and logs it in two lines each', async () => {
    const database = await createDatabase();
    const real = new URL(database.url);
    const proxy = await startTcpProxy(Number(real.port || 5432), real.hostname);
    const viaProxy = new URL(database.url);
    viaProxy.port = String(proxy.port);
    const secrets = {
      DATABASE_URL: viaProxy.toString(),
      TOKEN_SIGNING_KEY: generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      PROXY_SEED: randomBytes(16).toString('hex'),
      CURSOR_SECRET: randomBytes(32).toString('hex'),
    };
    const instances: RunningGateway[] = [];
    try {
      instances.push(await startGateway(secrets));
      instances.push(await startGateway(secrets));
      const outcomes: Outcome[] = [];
      let phase: Outcome['phase'] = 'before';
      let turn = 0;
      const read = async (path: string) => {
        const at = phase;
        const instance = instances[turn++ % instances.length] as RunningGateway;
        const response = await fetch(`${instance.url}${path}`, { signal: AbortSignal.timeout(8000) });
        await response.arrayBuffer();
        outcomes.push({
          phase: at,
          path,
          status: response.status,
          age: response.headers.get('catalogue-age'),
          retryAfter: response.headers.get('retry-after'),
        });
      };
      const trades = '/v1/addresses/3P9KR33QyXwfTXv8kKtNGZYtgKk3RXSUk36/trades/WAVES/USDT?limit=5';
      // A steady load, round-robin over the instances, as a load balancer would spread it.
      const load = async (ms: number) => {
        const until = Date.now() + ms;
        while (Date.now() < until) {
          await Promise.all([...PUBLIC_READS, trades].map((path) => read(path)));
          await new Promise((r) => setTimeout(r, 100));
        }
      };
      await load(1000);
      proxy.down();
      phase = 'down';
      const outage = load(OUTAGE_MS);
      // Midway: what each instance says of itself.
      await new Promise((r) => setTimeout(r, 3000));
      const states = await Promise.all(
        instances.map(async (instance) => {
          const serving = await fetch(`${instance.url}/health/serving`);
          const ready = await fetch(`${instance.url}/health/ready`);
          const metrics = await (await fetch(`${instance.url}/metrics`)).text();
          return { serving: serving.status, body: await serving.json(), ready: ready.status, metrics };
        }),
      );
      await outage;
      proxy.up();
      phase = 'after';
      // Back without a restart: the pool reconnects, the catalogue's next check succeeds.
      for (let i = 0; i < 40; i++) {
        const ready = await Promise.all(instances.map((g) => fetch(`${g.url}/health/ready`).then((r) => r.status)));
        if (ready.every((s) => s === 200)) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      // Reads go on answering from the catalogue in memory (with its age) until one of them, at most once a
      // second, finds the database back and the catalogue current.
      for (const g of instances) {
        for (let i = 0; i < 40; i++) {
          if ((await fetch(`${g.url}/v1/platforms`)).headers.get('catalogue-age') === null) break;
          await new Promise((r) => setTimeout(r, 250));
        }
      }
      await load(1000);

      const of = (p: Outcome['phase'], isPublic: boolean) =>
        outcomes.filter((o) => o.phase === p && (o.path !== trades) === isPublic);
      const downPublic = of('down', true);
      faults.push({
        fault: 'PostgreSQL away 10 s, two instances: public reads not answered 200',
        lost: outcomes.filter((o) => o.path !== trades && o.status !== 200).length,
      });
      expect(downPublic.length).toBeGreaterThan(100);
      expect(downPublic.filter((o) => o.status !== 200)).toEqual([]);
      // Answered from memory, saying so; before and after, nothing says it.
      expect(downPublic.filter((o) => o.age !== null).length).toBeGreaterThan(downPublic.length * 0.8);
      expect(downPublic.every((o) => o.age === null || /^\d+$/.test(o.age))).toBe(true);
      expect(of('before', true).every((o) => o.status === 200 && o.age === null)).toBe(true);
      expect(of('after', true).filter((o) => o.status !== 200 || o.age !== null)).toEqual([]);
      // What needs the database is refused, retryable, and served again after.
      expect(of('down', false).every((o) => o.status === 503 && o.retryAfter !== null)).toBe(true);
      expect(of('after', false).every((o) => o.status === 200)).toBe(true);

      for (const state of states) {
        expect(state.ready).toBe(503);
        expect(state.serving).toBe(200);
        expect(state.body).toMatchObject({ status: 'degraded', checks: { database: 'unavailable', catalogue: 'ok' } });
        expect(state.body.catalogue_age_seconds).toBeGreaterThanOrEqual(0);
        expect(state.metrics).toMatch(/^gateway_database_up 0$/m);
        expect(state.metrics).toMatch(/^gateway_catalogue_stale_seconds [1-9]/m);
        // The announcements (revocations, movement events) are not heard meanwhile, and the metric says so.
        expect(state.metrics).toMatch(/^gateway_listen_up\{topic="revoked"\} 0$/m);
        expect(state.metrics).toMatch(/^gateway_listen_up\{topic="movement_events"\} 0$/m);
      }
      for (const instance of instances) {
        const lines = instance.output().split('\n');
        expect(lines.filter((l) => l.includes('database lost'))).toHaveLength(1);
        expect(lines.filter((l) => l.includes('database back after'))).toHaveLength(1);
        for (const what of ['revocations', 'movement events']) {
          expect(lines.filter((l) => l.includes(`listening for ${what} lost`))).toHaveLength(1);
          expect(lines.filter((l) => l.includes(`listening for ${what} back`))).toHaveLength(1);
        }
        // One stack trace for the whole outage: the 'lost' line's.
        expect(lines.filter((l) => l.includes('"stack"') && !l.includes('database lost'))).toEqual([]);
      }
    } finally {
      await Promise.all(instances.map((g) => g.stop()));
      await proxy.close();
      await database.drop();
    }
  }, 90_000);
});
