/**
 * Token families, model-based: random sequences of sign-ins, refreshes, replays of spent refresh tokens,
 * concurrent refreshes, revocations (by refresh or access token, through either instance), uses of access
 * tokens and moves of the clock past expiries, against the real app (both databases; two instances on one
 * PostgreSQL database), each step checked against a model of what the spec promises:
 *
 * - a password grant starts a family; a refresh spends its token once and issues a pair (access token with
 *   the sign-in's lifetime, from now); presenting a spent token again within the reuse grace (30 s from its
 *   spending) issues another pair of the family, the token staying spent; past the grace it revokes the
 *   family (11308); two refreshes of one token at once both get a pair;
 * - a family has one live refresh token: every pair issued spends the family's other unspent tokens at that
 *   moment (a replay within the grace supersedes the live branch, which is then a reuse past the grace). Of
 *   two pairs issued at once, which is the live one is read from the store;
 * - a refresh token works until it expires, then 11308 without revoking anything;
 * - `POST /v1/oauth2/revoke` answers 200 always; it revokes the family of any refresh token it stored, or of
 *   an access token that has not expired;
 * - an access token works (200) until its expiry unless its family is revoked: then 401/10000 at once on
 *   the instance that revoked it, and within 5 s on the other (checked at each use and at the sequence's end);
 * - revoking a family (by request or on reuse) ends its password: from then on, on either instance, a password
 *   of the account signed for an expiry at or before the family's is refused (11309), whether it is the same
 *   string replayed or one signed anew; a later expiry starts a family. Each sequence signs in an account of
 *   its own, since the database (and what it remembers of sign-outs) outlives the sequence's clock.
 */

import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeOf, passwordFields, postToken, type TestApp, testApp } from '../support/app.js';
import { DATABASES, type DatabaseKind } from '../support/databases.js';
import { checkModel, modelRuns, StepCounter } from '../support/model.js';
import { isLiveRefreshToken } from '../support/refresh-tokens.js';
import { type LedgerUser, newLedgerUser } from '../support/signers.js';

/** The spec's bound on how late another instance refuses a revoked family's access tokens. */
const BOUND_MS = 5000;
const WEEK = 604_800;

interface Family {
  revoked: { by: number; atWall: number } | null;
  /** The password that started it, and the expiry it is signed for. */
  password: string;
  expiry: number;
}
interface RefreshToken {
  token: string;
  family: number;
  /** When it was spent (the clock's seconds); null while unspent. */
  spentAt: number | null;
  expiresAt: number;
}
interface AccessToken {
  token: string;
  family: number;
  exp: number;
}
interface Model {
  families: Family[];
  refreshTokens: RefreshToken[];
  accessTokens: AccessToken[];
  /** The sign-in's lifetime per family: every access token of it lives this long from its issue. */
  lifetimes: number[];
  /** The latest signed expiry of a revoked family: passwords expiring at or before it are refused. */
  signedOutThrough: number;
}
interface Real {
  instances: FastifyInstance[];
  counter: StepCounter;
  clock: { seconds: number };
  ttl: number;
  /** The reuse grace, seconds. */
  grace: number;
  /** The sequence's account. */
  user: LedgerUser;
  /** Whether the store holds `token` unspent (which of two pairs issued at once is the live one). */
  unspent(token: string): Promise<boolean>;
}

type Command = fc.AsyncCommand<Model, Real>;
const at = <T>(list: T[], index: number): T => list[index % list.length] as T;

const refresh = (app: FastifyInstance, token: string) =>
  postToken(app, { grant_type: 'refresh_token', scope: 'general', client_id: 'waves.exchange', refresh_token: token });

const use = (app: FastifyInstance, token: string) =>
  app.inject({ url: '/v1/movements?limit=1', headers: { authorization: `Bearer ${token}` } });

function revoke(model: Model, family: number, by: number) {
  const f = model.families[family] as Family;
  f.revoked ??= { by, atWall: Date.now() };
  model.signedOutThrough = Math.max(model.signedOutThrough, f.expiry);
}

/**
 * A password grant with `password` (signed for `expiry`) through `app`, checked against the model: a new
 * family, or the refusal the model expects (11305 for an expiry passed, 11309 for one signed out).
 */
async function grantPassword(model: Model, real: Real, app: FastifyInstance, password: string, expiry: number) {
  const response = await postToken(app, passwordFields(real.user, password));
  const now = real.clock.seconds;
  const refusal = expiry <= now ? 11305 : expiry <= model.signedOutThrough ? 11309 : null;
  if (refusal !== null) {
    expect(response.statusCode, response.body).toBe(400);
    expect(codeOf(response)).toBe(refusal);
    return;
  }
  expect(response.statusCode, response.body).toBe(200);
  model.families.push({ revoked: null, password, expiry });
  model.lifetimes.push(expiry - now);
  issued(model, real, model.families.length - 1, response.json());
}

/**
 * Records the pair a successful grant issued: its refresh token is the family's live one, and every other
 * unspent token of the family is spent now (one live chain a sign-in).
 */
function issued(
  model: Model,
  real: Real,
  family: number,
  body: { access_token: string; refresh_token: string; expires_in: number },
) {
  const now = real.clock.seconds;
  expect(body.expires_in).toBe(now + (model.lifetimes[family] as number));
  for (const token of model.refreshTokens) if (token.family === family) token.spentAt ??= now;
  model.refreshTokens.push({ token: body.refresh_token, family, spentAt: null, expiresAt: now + real.ttl });
  model.accessTokens.push({ token: body.access_token, family, exp: body.expires_in });
}

class SignIn implements Command {
  constructor(
    readonly instance: number,
    readonly lifetime: number,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    real.counter.steps++;
    const expiry = real.clock.seconds + this.lifetime;
    await grantPassword(model, real, at(real.instances, this.instance), real.user.password(expiry), expiry);
  }
  toString = () => `signIn(@${this.instance}, ${this.lifetime}s)`;
}

/** A family's password presented again, as it is (from a log, a proxy, a query string). */
class ReplayPassword implements Command {
  constructor(
    readonly index: number,
    readonly instance: number,
  ) {}
  check = (model: Readonly<Model>) => model.families.length > 0;
  async run(model: Model, real: Real) {
    real.counter.steps++;
    const family = at(model.families, this.index);
    await grantPassword(model, real, at(real.instances, this.instance), family.password, family.expiry);
  }
  toString = () => `replayPassword(family #${this.index}, @${this.instance})`;
}

/**
 * What the model says a refresh of `token` does now: a new pair (spending it, or of a token spent within the
 * grace), or 11308 with or without a revocation.
 */
function refreshOutcome(model: Model, real: Real, token: RefreshToken): 'pair' | 'refused' | 'reuse' {
  const now = real.clock.seconds;
  if ((model.families[token.family] as Family).revoked) return 'refused';
  if (token.spentAt !== null) return token.expiresAt > now && now - token.spentAt <= real.grace ? 'pair' : 'reuse';
  return token.expiresAt <= now ? 'refused' : 'pair';
}

class Refresh implements Command {
  constructor(
    readonly index: number,
    readonly instance: number,
  ) {}
  check = (model: Readonly<Model>) => model.refreshTokens.length > 0;
  async run(model: Model, real: Real) {
    real.counter.steps++;
    const token = at(model.refreshTokens, this.index);
    const expected = refreshOutcome(model, real, token);
    const response = await refresh(at(real.instances, this.instance), token.token);
    if (expected === 'pair') {
      expect(response.statusCode, response.body).toBe(200);
      token.spentAt ??= real.clock.seconds;
      issued(model, real, token.family, response.json());
      return;
    }
    expect(response.statusCode, response.body).toBe(400);
    expect(codeOf(response)).toBe(11308);
    if (expected === 'reuse') revoke(model, token.family, this.instance % real.instances.length);
  }
  toString = () => `refresh(#${this.index}, @${this.instance})`;
}

/** Two refreshes of one token at once (one through each instance when there are two). */
class ConcurrentRefresh implements Command {
  constructor(readonly index: number) {}
  check = (model: Readonly<Model>) => model.refreshTokens.length > 0;
  async run(model: Model, real: Real) {
    real.counter.steps++;
    const token = at(model.refreshTokens, this.index);
    const expected = refreshOutcome(model, real, token);
    const [a, b] = await Promise.all([
      refresh(at(real.instances, 0), token.token),
      refresh(at(real.instances, 1), token.token),
    ]);
    const responses = [a, b];
    const winners = responses.filter((r) => r.statusCode === 200);
    for (const r of responses) if (r.statusCode !== 200) expect(codeOf(r), r.body).toBe(11308);
    if (expected === 'pair') {
      // One spends it, the other presented it within the grace: both get a pair of the family, and the pair
      // stored last is the live one, the other spent at once. Which came last is the store's to say.
      expect(winners).toHaveLength(2);
      token.spentAt ??= real.clock.seconds;
      const pairs = winners.map((w) => w.json() as { access_token: string; refresh_token: string; expires_in: number });
      const unspent = await Promise.all(pairs.map((p) => real.unspent(p.refresh_token)));
      expect(unspent.filter(Boolean), 'one of the two pairs is live').toHaveLength(1);
      // The superseded one first: issuing the live one then spends it, as the store did.
      for (const pair of unspent[0] ? [pairs[1], pairs[0]] : pairs)
        issued(model, real, token.family, pair as (typeof pairs)[0]);
      return;
    }
    expect(winners).toHaveLength(0);
    // Both presented a spent token: both instances revoke.
    if (expected === 'reuse') revoke(model, token.family, 0);
  }
  toString = () => `concurrentRefresh(#${this.index})`;
}

class Revoke implements Command {
  constructor(
    readonly kind: 'refresh' | 'access',
    readonly index: number,
    readonly instance: number,
    readonly hint: 'refresh_token' | 'access_token' | undefined,
  ) {}
  check = (model: Readonly<Model>) => (this.kind === 'refresh' ? model.refreshTokens : model.accessTokens).length > 0;
  async run(model: Model, real: Real) {
    real.counter.steps++;
    const token = this.kind === 'refresh' ? at(model.refreshTokens, this.index) : at(model.accessTokens, this.index);
    const response = await at(real.instances, this.instance).inject({
      method: 'POST',
      url: '/v1/oauth2/revoke',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        token: token.token,
        ...(this.hint ? { token_type_hint: this.hint } : {}),
      }).toString(),
    });
    expect(response.statusCode, response.body).toBe(200);
    // A stored refresh token revokes its family whatever its state; an access token only until it expires.
    if (this.kind === 'refresh' || (token as AccessToken).exp > real.clock.seconds) {
      revoke(model, token.family, this.instance % real.instances.length);
    }
  }
  toString = () => `revoke(${this.kind} #${this.index}, @${this.instance}, ${this.hint ?? 'no hint'})`;
}

class UseAccess implements Command {
  constructor(
    readonly index: number,
    readonly instance: number,
  ) {}
  check = (model: Readonly<Model>) => model.accessTokens.length > 0;
  async run(model: Model, real: Real) {
    real.counter.steps++;
    const token = at(model.accessTokens, this.index);
    const instance = this.instance % real.instances.length;
    const response = await use(at(real.instances, instance), token.token);
    const revoked = (model.families[token.family] as Family).revoked;
    if (
      token.exp <= real.clock.seconds ||
      (revoked && (revoked.by === instance || Date.now() - revoked.atWall > BOUND_MS))
    ) {
      expect(response.statusCode, response.body).toBe(401);
      expect(codeOf(response)).toBe(10000);
    } else if (revoked) {
      // Revoked at the other instance less than the bound ago: either answer is within the promise.
      expect([200, 401]).toContain(response.statusCode);
    } else {
      expect(response.statusCode, response.body).toBe(200);
    }
  }
  toString = () => `use(#${this.index}, @${this.instance})`;
}

class AdvanceClock implements Command {
  constructor(readonly seconds: number) {}
  check = () => true;
  async run(_model: Model, real: Real) {
    real.counter.steps++;
    real.clock.seconds += this.seconds;
  }
  toString = () => `clock +${this.seconds}s`;
}

/** Every revoked family's unexpired access tokens are refused by every instance within the bound. */
async function settle(model: Model, real: Real) {
  for (const token of model.accessTokens) {
    const revoked = (model.families[token.family] as Family).revoked;
    if (!revoked || token.exp <= real.clock.seconds) continue;
    for (const app of real.instances) {
      for (;;) {
        const response = await use(app, token.token);
        if (response.statusCode === 401) break;
        expect(response.statusCode).toBe(200);
        expect(Date.now() - revoked.atWall, 'a revoked access token still accepted past the bound').toBeLessThan(
          BOUND_MS,
        );
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }
}

function commands(ttl: number) {
  const instance = fc.nat(1);
  return fc.commands(
    [
      fc.tuple(instance, fc.integer({ min: 60, max: WEEK })).map(([i, l]) => new SignIn(i, l)),
      fc.tuple(instance, fc.integer({ min: 60, max: WEEK })).map(([i, l]) => new SignIn(i, l)),
      fc.tuple(fc.nat(), instance).map(([n, i]) => new ReplayPassword(n, i)),
      fc.tuple(fc.nat(), instance).map(([n, i]) => new Refresh(n, i)),
      fc.nat().map((n) => new ConcurrentRefresh(n)),
      fc
        .tuple(
          fc.constantFrom('refresh' as const, 'access' as const),
          fc.nat(),
          instance,
          fc.constantFrom('refresh_token' as const, 'access_token' as const, undefined),
        )
        .map(([k, n, i, h]) => new Revoke(k, n, i, h)),
      fc.tuple(fc.nat(), instance).map(([n, i]) => new UseAccess(n, i)),
      fc.tuple(fc.nat(), instance).map(([n, i]) => new UseAccess(n, i)),
      fc
        .oneof(
          { arbitrary: fc.integer({ min: 1, max: 3600 }), weight: 3 },
          // Around the reuse grace's end.
          { arbitrary: fc.integer({ min: 1, max: 40 }), weight: 2 },
          { arbitrary: fc.constant(WEEK), weight: 1 },
          { arbitrary: fc.constant(ttl), weight: 1 },
        )
        .map((s) => new AdvanceClock(s)),
    ],
    { maxCommands: 30, size: 'max' },
  );
}

describe.each(DATABASES)('token families against a model on %s', (kind: DatabaseKind) => {
  const clock = { seconds: Math.floor(Date.now() / 1000) };
  let t: TestApp;
  const instances: FastifyInstance[] = [];
  beforeAll(async () => {
    t = await testApp(kind, { demo: true, now: () => clock.seconds * 1000 });
    instances.push(t.app);
    // Two instances where there can be two: SQLite has one process writing it (docs/deployment.md).
    if (kind === 'postgres') instances.push(await t.another());
  });
  afterAll(() => t.close());

  it('grants, refreshes, replays, concurrent refreshes, revocations, uses and clock moves hold to the model', async () => {
    const counter = new StepCounter();
    const property = fc.asyncProperty(commands(t.config.refreshTokenTtl), async (cmds) => {
      counter.sequences++;
      // Each sequence starts at the real time, its tokens its own.
      clock.seconds = Math.floor(Date.now() / 1000);
      const setup = () => ({
        model: { families: [], refreshTokens: [], accessTokens: [], lifetimes: [], signedOutThrough: 0 } as Model,
        real: {
          instances,
          counter,
          clock,
          ttl: t.config.refreshTokenTtl,
          grace: t.config.refreshReuseGraceSeconds,
          user: newLedgerUser(),
          unspent: (token: string) => isLiveRefreshToken(t.store.db, token),
        } as Real,
      });
      let state: { model: Model; real: Real } | undefined;
      await fc.asyncModelRun(() => {
        state = setup();
        return state;
      }, cmds);
      if (state) await settle(state.model, state.real);
    });
    await checkModel(`tokens-${kind}`, property, counter, modelRuns(8));
  }, 300_000);
});
