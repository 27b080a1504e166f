/**
 * Rotating the token signing key through a rolling deploy of two instances, as docs/deployment.md says:
 * (1) announce the next public key on every instance (TOKEN_ACCEPTED_PUBLIC_KEYS), one at a time; (2) sign
 * with it (TOKEN_SIGNING_KEY, with the previous public key accepted), one at a time; (3) once the previous
 * key's tokens have expired, stop accepting it. A client signs in and calls all the while, its requests
 * spread over the instances that are up, as a load balancer would: not one of them gets a 401.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { recordFigures } from '../src/figures.js';
import { type RunningGateway, startGateway } from '../src/gateway.js';
import { createDatabase } from '../src/postgres.js';
import { passwordGrant } from '../src/sign-in.js';

const faults: { fault: string; lost: number }[] = [];
afterAll(() => {
  recordFigures('key-rotation', { injected: faults.length, lost: faults.reduce((n, f) => n + f.lost, 0), faults });
});

const keyPair = () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    private: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    public: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
};
const kidOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString()).kid as string;

describe('a signing key rotated through a rolling deploy of two instances', () => {
  it('gives not one 401: announce the next key, sign with it, retire the old one', async () => {
    const database = await createDatabase();
    const [oldKey, newKey] = [keyPair(), keyPair()];
    const shared = {
      DATABASE_URL: database.url,
      PROXY_SEED: randomBytes(16).toString('hex'),
      CURSOR_SECRET: randomBytes(32).toString('hex'),
    };
    const start = (signing: string, accepted: string[]) =>
      startGateway({ ...shared, TOKEN_SIGNING_KEY: signing, TOKEN_ACCEPTED_PUBLIC_KEYS: accepted.join(',') });
    // The load balancer's pool: the instances that are up, by slot.
    const slots: (RunningGateway | null)[] = [await start(oldKey.private, []), await start(oldKey.private, [])];
    const tokens: string[] = [];
    const outcomes: { status: number; phase: string; body?: string }[] = [];
    let phase = 'before';
    // The requests each instance was given and has not answered: a load balancer drains an instance it took out
    // of its pool before the instance is stopped (a request sent after SIGTERM is refused 503, rightly).
    const inFlight = new Map<RunningGateway, number>();
    // Any instance that is up, at random (with many clients, round-robin is as good as random for each one),
    // given one request: `send` is called with its URL.
    const via = async (send: (url: string) => Promise<Response>) => {
      const up = slots.filter((s): s is RunningGateway => s !== null);
      const instance = up[Math.floor(Math.random() * up.length)] as RunningGateway;
      inFlight.set(instance, (inFlight.get(instance) ?? 0) + 1);
      try {
        const response = await send(instance.url);
        const body = Buffer.from(await response.arrayBuffer()).toString('utf8');
        // A refusal says why in its error body: kept, so that a failure here names it.
        outcomes.push({ status: response.status, phase, ...(response.ok ? {} : { body: body.slice(0, 300) }) });
        return response.ok ? body : null;
      } finally {
        inFlight.set(instance, (inFlight.get(instance) ?? 1) - 1);
      }
    };
    const signIn = async () => {
      const body = await via(async (url) => (await passwordGrant(url, { expiresIn: 3600 })).response);
      if (body !== null) tokens.push((JSON.parse(body) as { access_token: string }).access_token);
    };
    // Every token issued so far, old and new, used on the next instance in turn.
    const useAll = async () => {
      for (const token of tokens.slice(-20)) {
        await via((url) => fetch(`${url}/v1/movements?limit=1`, { headers: { authorization: `Bearer ${token}` } }));
      }
    };
    let running = true;
    // A client that signs in and calls every 100 ms (not as fast as it can: the rotation is what is tested, and
    // a flat-out loop only took the cores from the instances starting beside it).
    const client = (async () => {
      while (running) {
        await signIn();
        await useAll();
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    // An instance is taken out of the pool, restarted with its new settings, and put back.
    const roll = async (slot: number, signing: string, accepted: string[]) => {
      const old = slots[slot] as RunningGateway;
      slots[slot] = null;
      while ((inFlight.get(old) ?? 0) > 0) await new Promise((r) => setTimeout(r, 5));
      await old.stop();
      slots[slot] = await start(signing, accepted);
      // A deploy moves on once the new instance has served a while: the old and new settings serve side by side.
      await new Promise((r) => setTimeout(r, 1500));
    };
    try {
      await new Promise((r) => setTimeout(r, 500));
      phase = 'announce';
      await roll(0, oldKey.private, [newKey.public]);
      await roll(1, oldKey.private, [newKey.public]);
      phase = 'switch';
      await roll(0, newKey.private, [oldKey.public]);
      await roll(1, newKey.private, [oldKey.public]);
      phase = 'switched';
      await new Promise((r) => setTimeout(r, 500));
      running = false;
      await client;

      const refusals = outcomes.filter((o) => o.status === 401);
      faults.push({
        fault: 'signing key rotated through a rolling deploy of two instances: 401s',
        lost: refusals.length,
      });
      expect(outcomes.length).toBeGreaterThan(50);
      expect(refusals).toEqual([]);
      expect(outcomes.filter((o) => o.status !== 200)).toEqual([]);
      // Both keys' tokens were in use through the switch.
      const kids = new Set(tokens.map(kidOf));
      expect(kids.size).toBe(2);

      // Step 3, once the old key's tokens have expired: only the new key is accepted.
      await roll(0, newKey.private, []);
      const instance = slots[0] as RunningGateway;
      const byKid = new Map(tokens.map((t) => [kidOf(t), t]));
      const [oldToken, newToken] = [tokens[0] as string, byKid.get(kidOf(tokens.at(-1) as string)) as string];
      expect(kidOf(oldToken)).not.toBe(kidOf(newToken));
      const call = (token: string) =>
        fetch(`${instance.url}/v1/movements?limit=1`, { headers: { authorization: `Bearer ${token}` } });
      expect((await call(newToken)).status).toBe(200);
      expect((await call(oldToken)).status).toBe(401);
    } finally {
      running = false;
      await client.catch(() => {});
      await Promise.all(slots.map((s) => s?.stop()));
      await database.drop();
    }
  }, 120_000);
});
