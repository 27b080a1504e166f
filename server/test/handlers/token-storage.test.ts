/**
 * What a sign-in costs the store: one row, whatever the number of its refreshes (issue 37: every refresh
 * used to add a row of `refresh_tokens` for ever). And the tokens issued before migration 0011 (rows of
 * `refresh_tokens`) keep working until they expire: their first refresh moves the sign-in to its row, a
 * replay of them within the grace gets a pair, past it they are a reuse. A token of the new form is one the
 * previous release refuses as unknown (its own form only).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken, LEGACY_REFRESH_TOKEN } from '../../src/domain/refresh-token.js';
import { codeOf, postToken, signIn, type TestApp, testApp } from '../support/app.js';
import { DATABASES } from '../support/databases.js';
import { newLedgerUser } from '../support/signers.js';

const FIVE_MINUTES = 300_000;
/** Days of refreshes: 30 on SQLite; 7 on PostgreSQL, whose round trips make a month ~45 s on a shared machine. */
const DAYS = { sqlite: 30, postgres: 7 } as const;

describe.each(DATABASES)('refresh tokens in storage on %s', (kind) => {
  const clock = { ms: Date.now() };
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp(kind, { demo: true, now: () => clock.ms });
  });
  afterAll(() => t?.close());

  const refresh = (token: string, clientId = 'waves.exchange') =>
    postToken(t.app, {
      grant_type: 'refresh_token',
      scope: 'general',
      client_id: clientId,
      refresh_token: token,
    });
  async function pairOf(token: string) {
    const response = await refresh(token);
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as { access_token: string; refresh_token: string; expires_in: number };
  }

  /** Rows the store holds for the account's sign-ins, and the largest family row's spent list. */
  async function rowsOf(account: string) {
    const families = await t.store.db
      .selectFrom('token_families')
      .select(['id', 'spent_recently'])
      .where('account', '=', account)
      .execute();
    const ids = families.map((f) => f.id);
    const tokens = ids.length
      ? await t.store.db.selectFrom('refresh_tokens').select('token_hash').where('family_id', 'in', ids).execute()
      : [];
    return {
      rows: families.length + tokens.length,
      spentBytes: Math.max(0, ...families.map((f) => f.spent_recently?.length ?? 0)),
    };
  }

  it(`a sign-in refreshed every 5 minutes for ${DAYS[kind]} days, with a second tab replaying now and then, holds one row`, async () => {
    const user = newLedgerUser();
    let pair = await signIn(t.app, user, Math.floor(clock.ms / 1000) + 3600);
    const start = clock.ms;
    let refreshes = 0;
    while (clock.ms - start < DAYS[kind] * 86_400_000) {
      clock.ms += FIVE_MINUTES;
      const next = await pairOf(pair.refresh_token);
      refreshes++;
      // Another tab that had not seen the new pair yet: a replay within the grace, which it supersedes.
      if (refreshes % 500 === 0) {
        clock.ms += 1000;
        pair = await pairOf(pair.refresh_token);
      } else {
        pair = next;
      }
    }
    expect(refreshes).toBeGreaterThanOrEqual(DAYS[kind] * 288);
    const { rows, spentBytes } = await rowsOf(user.address);
    expect(rows).toBe(1);
    expect(spentBytes).toBeLessThan(1000);
    // Still one sign-in, with reuse detection: the last token refreshes, a spent one past the grace revokes.
    clock.ms += 60_000;
    const last = await pairOf(pair.refresh_token);
    clock.ms += 60_000;
    expect(codeOf(await refresh(pair.refresh_token))).toBe(11308);
    expect(codeOf(await refresh(last.refresh_token))).toBe(11308);
  }, 120_000);

  /** A sign-in as the previous release stored it: the family, and its refresh token as a row of its own. */
  async function legacySignIn(account: string, options: { usedAt?: string } = {}) {
    const token = `rt_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url')}`;
    const familyId = crypto.randomUUID();
    const now = new Date(clock.ms).toISOString();
    const claims = { a: account, nb: 'W', user_name: 'x', pk: 'x', cid: 'waves.exchange', lt: 3600 };
    await t.store.db.insertInto('token_families').values({ id: familyId, account, created_at: now }).execute();
    await t.store.db
      .insertInto('refresh_tokens')
      .values({
        token_hash: hashToken(token),
        family_id: familyId,
        claims: JSON.stringify(claims),
        expires_at: new Date(clock.ms + t.config.refreshTokenTtl * 1000).toISOString(),
        used_at: options.usedAt ?? null,
        created_at: now,
      })
      .execute();
    return { token, familyId };
  }

  it('a token of the old form keeps working: refreshed, it gives a token of the new form, and its sign-in stops growing', async () => {
    const account = newLedgerUser().address;
    const { token } = await legacySignIn(account);
    const first = await pairOf(token);
    expect(first.refresh_token).toMatch(/^rf_/);
    // Two tabs: the old token replayed within the grace gets a pair of the same sign-in.
    const replayed = await pairOf(token);
    let pair = replayed;
    for (let i = 0; i < 20; i++) {
      clock.ms += FIVE_MINUTES;
      pair = await pairOf(pair.refresh_token);
    }
    expect((await rowsOf(account)).rows, 'the family and the old token, spent').toBe(2);
    // Past the grace, the old token and the branch it superseded are reuses: the sign-in is revoked.
    expect(codeOf(await refresh(token))).toBe(11308);
    expect(codeOf(await refresh(pair.refresh_token))).toBe(11308);
    expect(
      codeOf(await t.app.inject({ url: '/v1/movements', headers: { authorization: `Bearer ${pair.access_token}` } })),
    ).toBe(10000);
  });

  it('a spent token of the old form past the grace revokes its sign-in; an expired one is refused', async () => {
    const account = newLedgerUser().address;
    const spent = await legacySignIn(account, { usedAt: new Date(clock.ms - 3_600_000).toISOString() });
    expect(codeOf(await refresh(spent.token))).toBe(11308);
    const family = await t.store.db
      .selectFrom('token_families')
      .select('revoked_at')
      .where('id', '=', spent.familyId)
      .executeTakeFirstOrThrow();
    expect(family.revoked_at).not.toBeNull();
    const live = await legacySignIn(account);
    clock.ms += (t.config.refreshTokenTtl + 1) * 1000;
    expect(codeOf(await refresh(live.token))).toBe(11308);
  });

  it('a token of the old form presented with another client id is refused and left as it was, spent or not', async () => {
    const account = newLedgerUser().address;
    const spent = await legacySignIn(account, { usedAt: new Date(clock.ms - 3_600_000).toISOString() });
    const live = await legacySignIn(account);
    expect(codeOf(await refresh(spent.token, 'wx.network'))).toBe(11308);
    expect(codeOf(await refresh(live.token, 'wx.network'))).toBe(11308);
    const revoked = await t.store.db
      .selectFrom('token_families')
      .select('revoked_at')
      .where('id', 'in', [spent.familyId, live.familyId])
      .execute();
    expect(revoked.map((family) => family.revoked_at)).toEqual([null, null]);
    await pairOf(live.token);
  });

  it('a token of the new form is not of the old form, so the previous release refuses it as unknown', async () => {
    const pair = await signIn(t.app, newLedgerUser(), Math.floor(clock.ms / 1000) + 600);
    expect(LEGACY_REFRESH_TOKEN.test(pair.refresh_token)).toBe(false);
    expect(pair.refresh_token.length).toBeLessThanOrEqual(256);
    // Tampered: another generation, another secret, another chain: refused, and only the chain's own revokes.
    const [head, generation, chain, secret] = pair.refresh_token.split('.') as [string, string, string, string];
    const otherChain = `${head}.${generation}.${'A'.repeat(22)}.${secret}`;
    expect(codeOf(await refresh(otherChain))).toBe(11308);
    expect((await pairOf(pair.refresh_token)).refresh_token).toMatch(/\.1\./);
    expect(chain).toHaveLength(22);
  });
});
