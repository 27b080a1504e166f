/**
 * A hostile client of GET /v1/events trying to learn other accounts' activity from the ids of its own
 * stream, against the real server (`gateway serve --demo`, SQLite) while other accounts' movements are
 * imported by another process (the CLI, as a feed would):
 * - the position a new stream starts at, probed before and after each of the others' imports;
 * - the ids of its own events, with the others' imported between them;
 * - resumes from ids beyond its own (far ahead, the previous release's range, the others' counts), by the
 *   header and by the query parameter: the `reset` they get, its id and its data;
 * - resumes from ids of its own range (as another account's would be): what comes back.
 * Every observation is counted; one that reveals anything of the others (an id or position that is not the
 * account's own count, an event not its own, a reset carrying more than its reason) is `accepted`.
 *
 *   cd test && CI= npx vitest run attack/hostile-event-ids
 */
import { randomUUID } from 'node:crypto';
import { addressOfPublicKey, signerFromSeed } from '@gateway/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordFigures } from '../src/figures.js';
import { type RunningGateway, startGateway } from '../src/gateway.js';
import { importMovementsOf } from '../src/movements.js';
import { Sse } from '../src/sse.js';
import { CHAIN_ID, signIn } from './support/session.js';

/** The others: accounts that never sign in, whose movements the feed imports. */
const OTHERS = Array.from({ length: 5 }, (_, i) =>
  addressOfPublicKey(signerFromSeed(`hostile event ids: someone else ${i}`).publicKey, CHAIN_ID),
);
const ROUNDS = 8;

interface Tally {
  tried: number;
  accepted: number;
  leaks: string[];
}

describe('hostile client: event ids that would tell of other accounts', () => {
  let gateway: RunningGateway;
  let token: string;
  const attacker = signerFromSeed(`hostile event ids: attacker ${randomUUID()}`);
  const address = addressOfPublicKey(attacker.publicKey, CHAIN_ID);
  /** The attacker's own movements, in the order imported (its n-th event has id n). */
  const own: string[] = [];
  const tally: Tally = { tried: 0, accepted: 0, leaks: [] };
  const observe = (what: string, revealing: boolean) => {
    tally.tried += 1;
    if (revealing) {
      tally.accepted += 1;
      tally.leaks.push(what);
    }
  };

  /** The others get `count` movements (spread over them), in one import. */
  const othersImport = (count: number) =>
    importMovementsOf(
      gateway.dataDir,
      Array.from({ length: count }, (_, i) => ({ id: randomUUID(), account: OTHERS[i % OTHERS.length] })),
    );
  const ownImport = async () => {
    const id = randomUUID();
    await importMovementsOf(gateway.dataDir, [{ id, account: address }]);
    own.push(id);
    return id;
  };
  const movementIdOf = (data: string | undefined) => (JSON.parse(data ?? '{}') as { id?: string }).id;

  beforeAll(async () => {
    gateway = await startGateway();
    token = (await signIn(gateway.url, attacker)).access_token;
  }, 60_000);
  afterAll(async () => {
    const alive = gateway ? (await fetch(`${gateway.url}/health/live`).catch(() => null))?.status === 200 : false;
    recordFigures('hostile-event-ids', {
      check: 'event ids leak other accounts activity',
      tried: `${tally.tried} observations (positions, own ids, resets, resumes) around ${ROUNDS} rounds of other accounts' imports`,
      accepted: tally.accepted,
      alive,
      leaks: tally.leaks.slice(0, 20),
    });
    await gateway?.stop();
  });

  it('positions and own ids count the account’s own events only, whatever the others import meanwhile', async () => {
    const live = await Sse.open(gateway.url, token);
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const before = await Sse.open(gateway.url, token);
        const position = before.messages[0]?.id;
        before.close();
        observe(`position ${position} with ${own.length} own events (round ${round})`, position !== String(own.length));
        await othersImport(1 + round * 7);
        const after = await Sse.open(gateway.url, token);
        const moved = after.messages[0]?.id;
        after.close();
        observe(`position ${moved} after the others' import (round ${round})`, moved !== position);
        await ownImport();
        await live.until(() => live.events.length === own.length);
        const last = live.events.at(-1);
        observe(
          `own event ${own.length} arrived as id ${last?.id}`,
          last?.id !== String(own.length) || movementIdOf(last?.data) !== own.at(-1),
        );
      }
    } finally {
      live.close();
    }
    // What the stream showed from its start: a position, then its own events one by one.
    observe(`the live stream's ids ${live.messages.map((m) => m.id).join(',')}`, live.messages[0]?.id !== '0');
    expect(tally.leaks).toEqual([]);
  }, 120_000);

  it('resumes from ids beyond its own get a reset at its own last id and nothing else', async () => {
    const last = own.length;
    // Just beyond its own, the demo account's count, far ahead, the previous release's range, the largest.
    const probes = [last + 1, last + 50, 60, 1000, 999_999_999, 1e15 + 1].map(String).concat('9999999999999999');
    for (const id of probes) {
      for (const via of ['header', 'query'] as const) {
        const sse = await Sse.open(gateway.url, token, id, via);
        await new Promise((resolve) => setTimeout(resolve, 50));
        sse.close();
        const [first, ...rest] = sse.messages;
        observe(
          `resume from ${id} (${via}): ${JSON.stringify(sse.messages)}`,
          first?.event !== 'reset' ||
            first.id !== String(last) ||
            first.data !== '{"type":"reset","reason":"unknown"}' ||
            rest.length > 0,
        );
      }
    }
    expect(tally.leaks).toEqual([]);
  }, 120_000);

  it('resumes from ids of its own range (as another account’s would be) give its own events, in order, and no other', async () => {
    await othersImport(40);
    for (let from = 0; from < own.length; from++) {
      const sse = await Sse.open(gateway.url, token, String(from), from % 2 ? 'query' : 'header');
      await sse.until(() => sse.events.length >= own.length - from);
      sse.close();
      const ids = sse.events.map((m) => m.id);
      const movements = sse.events.map((m) => movementIdOf(m.data));
      const expected = own.slice(from);
      observe(
        `resume from ${from}: ids ${ids.join(',')}`,
        ids.join(',') !== expected.map((_, i) => String(from + 1 + i)).join(',') ||
          movements.join(',') !== expected.join(','),
      );
    }
    expect(tally.leaks).toEqual([]);
  }, 120_000);
});
