/**
 * The soak (bench/soak.mjs; what it measures and how to read it: bench/soak.md).
 *
 * 1. Bytes per operation, on a fresh store: grants, then refreshes of those sign-ins, then movements (with
 *    their events): what each adds to its tables (PostgreSQL: before and after a VACUUM).
 * 2. The days: the issue's day at `--scale` of its 50,000 users, day after day on the simulated clock, in
 *    5-minute ticks (each user signs in twice, at a random time of the morning and of the afternoon, and
 *    refreshes every 5 minutes for 4 hours each time: 96 refreshes a day; 200,000 x scale movements a day,
 *    imported each tick), the housekeeping every 10 minutes as `serve` runs it; then at the end of each day
 *    the rows and bytes of the token and event tables, before and after that run of the housekeeping, and the
 *    time of a refresh, a movements page and an event read.
 * 3. The refresh row: a refresh with 500,000 sign-ins stored beside one with 3,000, rounds alternating.
 *
 * Rows and bytes do not depend on the machine; times do (a shared machine: read them side by side only).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH, createRng, median, quantile } from './common.mjs';
import {
  autovacuum,
  clock,
  grant,
  inParallel,
  makeUsers,
  movementSource,
  openSoakStore,
  query,
  refresh,
  server,
  sizes,
  tokenSettings,
} from './soak-store.mjs';

const { values: options } = parseArgs({
  options: {
    days: { type: 'string' },
    scale: { type: 'string' },
    'movement-scale': { type: 'string' },
    stores: { type: 'string', default: 'sqlite,pg' },
    only: { type: 'string', default: 'units,soak,refresh' },
    'refresh-ttl-days': { type: 'string' },
    'retention-hours': { type: 'string', default: '24' },
    small: { type: 'string', default: '3000' },
    big: { type: 'string' },
    rounds: { type: 'string', default: '7' },
    'per-round': { type: 'string', default: '200' },
    quick: { type: 'boolean', default: false },
    seed: { type: 'string', default: 'soak-v1' },
    out: { type: 'string' },
    'no-results': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    concurrency: { type: 'string', default: '8' },
  },
});
const QUICK = options.quick;
const DAYS = Number(options.days ?? (QUICK ? 5 : 34));
const SCALE = Number(options.scale ?? 0.001);
/**
 * The movements' own scale (default 10 x the users'): they cost little to write, and tables of a few hundred
 * rows would be mostly their first pages. Each part is extrapolated by its own scale.
 */
const MOVEMENT_SCALE = Number(options['movement-scale'] ?? Math.min(1, SCALE * 10));
/** The server's default REFRESH_TOKEN_TTL is 30 days; --quick uses 2 so that a short run reaches the plateau. */
const TTL_DAYS = Number(options['refresh-ttl-days'] ?? (QUICK ? 2 : 30));
const RETENTION_HOURS = Number(options['retention-hours']);
const STORES = options.stores.split(',').filter(Boolean);
const PHASES = new Set(options.only.split(','));
const SMALL = Number(options.small);
const BIG = Number(options.big ?? (QUICK ? 100_000 : 500_000));
const ROUNDS = Number(options.rounds);
const PER_ROUND = Number(options['per-round']);

/** The issue's day at full scale. */
const FULL = { users: 50_000, signInsPerUser: 2, refreshEveryMinutes: 5, activeHours: 8, movements: 200_000 };
const TICK_MS = FULL.refreshEveryMinutes * 60_000;
const TICKS = (24 * 60) / FULL.refreshEveryMinutes;
/** The housekeeping runs every 10 minutes in `serve` (HOUSEKEEPING_INTERVAL_SECONDS): every this many ticks. */
const HOUSEKEEPING_TICKS = Math.max(1, Math.round(10 / FULL.refreshEveryMinutes));
const REFRESHES_PER_SIGN_IN = (FULL.activeHours * 60) / FULL.refreshEveryMinutes / FULL.signInsPerUser;
const USERS = Math.max(1, Math.round(FULL.users * SCALE));
const MOVEMENTS_PER_DAY = Math.round(FULL.movements * MOVEMENT_SCALE);
/**
 * Refreshes run `--concurrency` at a time (default 8, the pool's connections). PostgreSQL's bytes depend on
 * it and on the machine's load: a refresh is a heap-only update only if its page has room for the new version,
 * which it has once the page's earlier dead versions are pruned, and whether they can be depends on which
 * transactions are running and which connection reads the page. The soak's tick refreshes its few dozen
 * active sign-ins, which share 2 or 3 pages, in a burst, where the real day spreads 167 refreshes a second
 * over some 170,000 pages. Measured (bench/soak.md): token bytes 10% apart between runs at 8 on a quiet and a
 * busy machine, and 1 at a time (one connection) 11% above 8. SQLite's bytes do not depend on it.
 */
const CONCURRENCY = Number(options.concurrency);
const PROBES = 30;

const tmpDir = path.join(os.tmpdir(), `soak-${process.pid}`);
const started = clock.real();
const log = (text) => process.stderr.write(`${text}\n`);
const mb = (bytes) => `${(bytes / 1e6).toFixed(bytes < 1e7 ? 2 : 1)} MB`;
const n = (value) => Math.round(value).toLocaleString('en-US');
const ms = (value) => (value === null || value === undefined ? '-' : value.toFixed(value < 10 ? 2 : 1));
const DAY_MS = 86_400_000;
/** Midnight UTC of today: the first simulated day. */
const DAY0 = Math.floor(clock.real() / DAY_MS) * DAY_MS;

const drops = new Set();
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, async () => {
    log(`\n${signal}: dropping the soak's databases …`);
    for (const drop of drops) await drop().catch(() => {});
    rmSync(tmpDir, { recursive: true, force: true });
    process.exit(130);
  });
}
async function withStore(kind, label, work) {
  const s = await openSoakStore(kind, tmpDir, label);
  drops.add(s.drop);
  try {
    return await work(s);
  } finally {
    drops.delete(s.drop);
    if (options.keep) {
      await s.store.close();
      log(`[${kind}] kept for inspection: ${s.database ?? s.file}`);
    } else await s.drop();
  }
}

/** Median time (ms) of `count` calls of `call(i)`, one after another. */
async function timed(count, call) {
  const times = [];
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    await call(i);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { median: median(times), p90: quantile(times, 0.9) };
}

/* ------------------------------------------------------------------ 1. bytes per operation */

async function unitCosts(kind) {
  return withStore(kind, 'units', async (s) => {
    const settings = tokenSettings(TTL_DAYS * 86_400);
    const rng = createRng(`${options.seed}/units`);
    const users = makeUsers(rng, 500);
    const nextMovements = movementSource(options.seed, users, rng);
    const vacuum = async () => {
      if (kind === 'pg') await query(s.store, 'vacuum (analyze)');
    };
    const GRANTS = 2_000;
    const REFRESHES = 5;
    const MOVEMENTS = 5_000;
    let now = DAY0;
    clock.set(now);
    // A first batch of each, so that what is measured is each table's growth, not its first pages.
    const warm = [];
    for (let i = 0; i < 100; i++) warm.push(await grant(s.store, settings, users[i % users.length], now / 1000));
    await server.upsertMovements(s.store.db, nextMovements(100, now));
    await vacuum();
    const before = await sizes(s);
    const sessions = [];
    for (let i = 0; i < GRANTS; i++) sessions.push(await grant(s.store, settings, users[i % users.length], now / 1000));
    await vacuum();
    const granted = await sizes(s);
    for (let r = 0; r < REFRESHES; r++) {
      now += TICK_MS;
      clock.set(now);
      await inParallel(sessions, CONCURRENCY, (session) => refresh(s.store, settings, session, now / 1000));
    }
    const refreshed = await sizes(s);
    await vacuum();
    const refreshedVacuumed = await sizes(s);
    for (let i = 0; i < MOVEMENTS; i += 500) await server.upsertMovements(s.store.db, nextMovements(500, now));
    await vacuum();
    const moved = await sizes(s);
    const per = (a, b, key, count) => (b[key].bytes - a[key].bytes) / count;
    const result = {
      grants: GRANTS,
      refreshes: GRANTS * REFRESHES,
      movements: MOVEMENTS,
      bytesPerGrant: per(before, granted, 'tokens', GRANTS),
      rowsPerGrant: (granted.tokens.rows - before.tokens.rows) / GRANTS,
      bytesPerRefresh: per(granted, refreshed, 'tokens', GRANTS * REFRESHES),
      bytesPerRefreshAfterVacuum: kind === 'pg' ? per(granted, refreshedVacuumed, 'tokens', GRANTS * REFRESHES) : null,
      rowsPerRefresh: (refreshed.tokens.rows - granted.tokens.rows) / (GRANTS * REFRESHES),
      bytesPerSignInAfterRefreshes:
        refreshedVacuumed.tables.token_families.bytes / refreshedVacuumed.tables.token_families.rows,
      bytesPerMovement: per(refreshedVacuumed, moved, 'movements', MOVEMENTS),
      bytesPerEvent: (moved.tables.movement_events.bytes - refreshedVacuumed.tables.movement_events.bytes) / MOVEMENTS,
      rowsPerMovement: (moved.tables.movement_events.rows - refreshedVacuumed.tables.movement_events.rows) / MOVEMENTS,
    };
    log(
      `[${kind}] bytes per operation: grant ${n(result.bytesPerGrant)} B (${result.rowsPerGrant} row), refresh ${n(result.bytesPerRefresh)} B` +
        (kind === 'pg' ? ` (${n(result.bytesPerRefreshAfterVacuum)} B after VACUUM)` : '') +
        ` (${result.rowsPerRefresh} rows), a sign-in after ${REFRESHES} refreshes ${n(result.bytesPerSignInAfterRefreshes)} B; movement ${n(result.bytesPerMovement)} B, its event ${n(result.bytesPerEvent)} B`,
    );
    return result;
  });
}

/* ------------------------------------------------------------------ 2. the days */

/** The day's sessions: two per user, one starting in the morning (06-12 h) and one in the afternoon (14-20 h). */
function daySessions(rng, users) {
  const starts = new Map();
  const startTick = (fromHour, toHour) =>
    (fromHour * 60) / FULL.refreshEveryMinutes + rng.int(((toHour - fromHour) * 60) / FULL.refreshEveryMinutes);
  for (const user of users) {
    for (const [from, to] of [
      [6, 12],
      [14, 20],
    ]) {
      const tick = startTick(from, to);
      if (!starts.has(tick)) starts.set(tick, []);
      starts.get(tick).push(user);
    }
  }
  return starts;
}

async function soak(kind) {
  return withStore(kind, 'soak', async (s) => {
    const settings = tokenSettings(TTL_DAYS * 86_400);
    const rng = createRng(`${options.seed}/days`);
    const users = makeUsers(rng, USERS);
    const nextMovements = movementSource(options.seed, users, rng);
    const { tasks, batch } = server.housekeeperOptions(server.testConfig({ eventRetentionHours: RETENTION_HOURS }), {
      info() {},
      warn() {},
    });
    // Each batch timed: the issue asks that none holds the writer or a lock for more than ~50 ms.
    const batchTimes = [];
    const timedTasks = tasks.map((task) => ({
      ...task,
      async run(db, now, size) {
        const t = performance.now();
        const deleted = await task.run(db, now, size);
        batchTimes.push(performance.now() - t);
        return deleted;
      },
    }));
    const av = autovacuum(s);
    let tokenRows = 0;
    let eventRows = 0;
    const live = (table) => (table === 'token_families' ? tokenRows : table === 'movement_events' ? eventRows : 0);
    const days = [];
    let recent = [];
    // What the migrated store holds before any row: pages that do not grow with the users (extrapolate).
    const empty = await sizes(s);
    log(
      `[${kind}] ${DAYS} days of ${n(USERS)} users (1/${n(1 / SCALE)} of ${n(FULL.users)}): ${n(USERS * 2)} sign-ins, ` +
        `${n(USERS * 2 * REFRESHES_PER_SIGN_IN)} refreshes, ${n(MOVEMENTS_PER_DAY)} movements (1/${n(1 / MOVEMENT_SCALE)}) a day; refresh tokens ${TTL_DAYS} days, events ${RETENTION_HOURS} h`,
    );
    for (let day = 1; day <= DAYS; day++) {
      const dayStarted = performance.now();
      const dayStart = DAY0 + (day - 1) * DAY_MS;
      const starts = daySessions(rng, users);
      let active = [];
      let refreshMs = 0;
      let refreshes = 0;
      let grants = 0;
      let moved = 0;
      let vacuums = 0;
      const todays = [];
      // The housekeeping, as `serve` runs it (its tasks, batch and pause) every 10 minutes of the day.
      const report = { deleted: {}, milliseconds: 0 };
      batchTimes.length = 0;
      const housekeeping = async (at) => {
        clock.set(at);
        const run = await server.runTasks(s.store, timedTasks, { batch, pauseMs: 20, now: () => new Date(at) });
        for (const [task, rows] of Object.entries(run.deleted))
          report.deleted[task] = (report.deleted[task] ?? 0) + rows;
        report.milliseconds += run.milliseconds;
        tokenRows -= run.deleted['sign-ins'] ?? 0;
        eventRows -= run.deleted.events ?? 0;
        av.changed('token_families', run.deleted['sign-ins'] ?? 0);
        av.changed('movement_events', run.deleted.events ?? 0);
        vacuums += await av.run(live);
      };
      for (let tick = 0; tick < TICKS; tick++) {
        const now = dayStart + tick * TICK_MS;
        clock.set(now);
        const due = active.filter((session) => session.left > 0);
        const t = performance.now();
        await inParallel(due, CONCURRENCY, async (session) => {
          await refresh(s.store, settings, session, now / 1000);
          session.left -= 1;
        });
        refreshMs += performance.now() - t;
        refreshes += due.length;
        av.changed('token_families', due.length);
        for (const user of starts.get(tick) ?? []) {
          const session = await grant(s.store, settings, user, now / 1000);
          session.left = REFRESHES_PER_SIGN_IN;
          active.push(session);
          todays.push(session);
          grants += 1;
        }
        tokenRows += starts.get(tick)?.length ?? 0;
        active = active.filter((session) => session.left > 0);
        const count =
          Math.floor(((tick + 1) * MOVEMENTS_PER_DAY) / TICKS) - Math.floor((tick * MOVEMENTS_PER_DAY) / TICKS);
        if (count > 0) {
          await server.upsertMovements(s.store.db, nextMovements(count, now));
          moved += count;
          eventRows += count;
        }
        vacuums += await av.run(live);
        if ((tick + 1) % HOUSEKEEPING_TICKS === 0 && tick + 1 < TICKS) await housekeeping(now + TICK_MS);
      }
      // The end of the day: the sizes before the housekeeping's run then (the most the tables hold: a day of
      // events and the 10 minutes since the last run), and after it.
      const end = dayStart + DAY_MS;
      clock.set(end);
      const before = await sizes(s);
      await housekeeping(end);
      const after = await sizes(s);
      tokenRows = after.tables.token_families.rows;
      eventRows = after.tables.movement_events.rows;
      // The statements at this size: a refresh of a sign-in of today, a movements page, an event read.
      recent = todays.slice(0, PROBES);
      const accounts = recent.map((session) => session.account);
      const [{ latest }] = [await server.eventPositions(s.store.db)];
      const probe = {
        refresh: await timed(recent.length, (i) => refresh(s.store, settings, recent[i], end / 1000)),
        page: await timed(PROBES, (i) =>
          server.listMovements(s.store, {
            account: accounts[i % accounts.length],
            after: null,
            limit: 100,
            maxBytes: 1e7,
          }),
        ),
        eventsOfAccount: await timed(PROBES, (i) =>
          server.accountEventsAfter(s.store.db, accounts[i % accounts.length], 0, 100),
        ),
        eventsBetween: await timed(PROBES, () => server.eventsBetween(s.store.db, latest - 100, latest, null, 100)),
      };
      const entry = {
        day,
        grants,
        refreshes,
        movements: moved,
        refreshMsMean: refreshes ? refreshMs / refreshes : null,
        before: {
          tokens: before.tokens,
          events: before.events,
          movements: before.movements,
          database: before.database,
        },
        after: { tokens: after.tokens, events: after.events, movements: after.movements, database: after.database },
        tables: after.tables,
        housekeeping: {
          deleted: report.deleted,
          seconds: report.milliseconds / 1000,
          batches: batchTimes.length,
          maxBatchMs: batchTimes.length ? Math.max(...batchTimes) : 0,
        },
        vacuums,
        probeMs: Object.fromEntries(Object.entries(probe).map(([k, v]) => [k, v.median])),
        seconds: (performance.now() - dayStarted) / 1000,
      };
      days.push(entry);
      log(
        `[${kind}] day ${String(day).padStart(2)}: tokens ${n(after.tokens.rows)} rows ${mb(after.tokens.bytes)}` +
          ` | events ${n(after.events.rows)} rows ${mb(after.events.bytes)} (${n(before.events.rows)}, ${mb(before.events.bytes)} before)` +
          ` | movements ${n(after.movements.rows)} ${mb(after.movements.bytes)}` +
          ` | housekeeping −${n(report.deleted['sign-ins'] ?? 0)} sign-ins −${n(report.deleted.events ?? 0)} events, max batch ${ms(entry.housekeeping.maxBatchMs)} ms` +
          ` | refresh ${ms(probe.refresh.median)} ms, page ${ms(probe.page.median)} ms, events ${ms(probe.eventsOfAccount.median)} ms` +
          ` | ${entry.seconds.toFixed(1)} s`,
      );
    }
    return { days, empty: { tokens: empty.tokens, events: empty.events } };
  });
}

/* ------------------------------------------------------------------ 3. refresh at 3,000 and 500,000 sign-ins */

/**
 * `count` sign-ins of the new form made by the database in one statement (as the plan test fills its tables),
 * each row as a grant and one refresh leave it: claims, hashes, a spent token kept for the grace, an end.
 */
function fillSignIns(kind, count) {
  const series =
    kind === 'sqlite'
      ? `with recursive n(i) as (select 1 union all select i + 1 from n where i < ${count}) select`
      : 'select';
  const from = kind === 'sqlite' ? 'from n' : `from generate_series(1, ${count}) as n(i)`;
  const hex = kind === 'sqlite' ? 'lower(hex(randomblob(32)))' : "encode(sha256(i::text::bytea), 'hex')";
  const text = (i) => (kind === 'sqlite' ? `cast(${i} as text)` : `(${i})::text`);
  const at = (days) =>
    kind === 'sqlite'
      ? `strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '${days} days')`
      : `to_char((now() at time zone 'utc') + interval '${days} days', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  const claims = `'{"a":"3P' || ${text('i')} || 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx","nb":"W","user_name":"key${text('i')}xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx","pk":"key${text('i')}xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx","cid":"waves.exchange","lt":86400}'`;
  return `insert into token_families (id, account, revoked_at, created_at, claims, chain_hash, generation, token_hash, token_expires_at, spent_recently, expires_at)
    ${series} 'fill-' || ${text('i')}, '3P' || ${text('i % 50000')}, null, ${at(-1)}, ${claims}, ${hex}, 1, ${hex}, ${at(29)},
      '[{"generation":0,"hash":"' || ${hex} || '","spentAt":"2026-01-01T00:00:00.000Z","expiresAt":"2026-02-01T00:00:00.000Z"}]', ${at(29)} ${from}`;
}

async function refreshRow(kind) {
  const settings = tokenSettings(30 * 86_400);
  clock.set(clock.real());
  const users = makeUsers(createRng(`${options.seed}/refresh-row`), 200);
  const prepare = async (s, count) => {
    const t = performance.now();
    await query(s.store, fillSignIns(kind, count - users.length));
    const sessions = [];
    for (const user of users) sessions.push(await grant(s.store, settings, user, clock.ms / 1000));
    await query(s.store, 'analyze');
    const [{ rows }] = await query(s.store, 'select count(*) as rows from token_families');
    log(
      `[${kind}] refresh row: ${n(Number(rows))} sign-ins stored in ${((performance.now() - t) / 1000).toFixed(1)} s`,
    );
    return sessions;
  };
  return withStore(kind, 'refresh-small', (small) =>
    withStore(kind, 'refresh-big', async (big) => {
      const targets = [
        { name: 'small', count: SMALL, s: small, sessions: await prepare(small, SMALL), times: [], roundMedians: [] },
        { name: 'big', count: BIG, s: big, sessions: await prepare(big, BIG), times: [], roundMedians: [] },
      ];
      // One warm-up round each, then rounds alternating which goes first.
      for (let round = -1; round < ROUNDS; round++) {
        const order = round % 2 === 0 ? targets : [...targets].reverse();
        for (const target of order) {
          const times = [];
          for (let i = 0; i < PER_ROUND; i++) {
            clock.set(clock.real());
            const session = target.sessions[i % target.sessions.length];
            const t = performance.now();
            await refresh(target.s.store, settings, session, clock.ms / 1000);
            times.push(performance.now() - t);
          }
          if (round < 0) continue;
          target.times.push(...times);
          target.roundMedians.push(median(times));
        }
      }
      const summary = Object.fromEntries(
        targets.map((t) => {
          const sorted = [...t.times].sort((a, b) => a - b);
          return [
            t.name,
            {
              signIns: t.count,
              refreshes: sorted.length,
              medianMs: median(sorted),
              p90Ms: quantile(sorted, 0.9),
              roundMedians: t.roundMedians,
            },
          ];
        }),
      );
      summary.ratio = summary.big.medianMs / summary.small.medianMs;
      log(
        `[${kind}] a refresh with ${n(BIG)} sign-ins stored: ${ms(summary.big.medianMs)} ms median (p90 ${ms(summary.big.p90Ms)}), with ${n(SMALL)}: ${ms(summary.small.medianMs)} ms (p90 ${ms(summary.small.p90Ms)}): ${summary.ratio.toFixed(2)} x (${ROUNDS} rounds of ${PER_ROUND}, alternating)`,
      );
      return summary;
    }),
  );
}

/* ------------------------------------------------------------------ extrapolation and report */

/**
 * PostgreSQL's free space and visibility maps at full scale: about 2 and 0.25 bytes per 8 KB page of their
 * relation (an FSM page covers some 4,000 pages, a VM page 32,672), where the soak's small tables have the
 * forks' minimum of 3 + 1 pages.
 */
const MAPS_SHARE = 0.0003;

/**
 * A group of tables at full scale: the pages an empty store already holds (`empty`: an index's metapage, the
 * first page of a table or index) counted once, the rest ÷ `scale` (every count of the day grows with the
 * users), and PostgreSQL's maps as the larger of what was measured and their share of the full-scale pages.
 */
function fullScaleBytes(part, empty, scale) {
  const grown = Math.max(0, part.main - empty.main) / scale;
  return empty.main + grown + Math.max(part.maps, MAPS_SHARE * grown);
}

/**
 * The full scale from the last day (`fullScaleBytes`; `...Divided`: all bytes ÷ scale, as the soak reported
 * them before 2026-11-28, the empty store's pages and the maps' minimum multiplied with the rest). `peak`:
 * before a run of the housekeeping (the most the tables hold: a day of events and the 10 minutes since the
 * last run), `after`: right after it.
 */
function extrapolate(days, units, empty) {
  const last = days[days.length - 1];
  const tokensAt = (d) => fullScaleBytes(d.tokens, empty.tokens, SCALE);
  const eventsAt = (d) => fullScaleBytes(d.events, empty.events, MOVEMENT_SCALE);
  const peak = days.reduce((max, d) => Math.max(max, tokensAt(d.before) + eventsAt(d.before)), 0);
  const peakDivided = days.reduce(
    (max, d) => Math.max(max, d.before.tokens.bytes / SCALE + d.before.events.bytes / MOVEMENT_SCALE),
    0,
  );
  const perRow = (part) => part.bytes / Math.max(1, part.rows);
  const signIns = last.tables.token_families.rows;
  return {
    users: FULL.users,
    bytesPerStoredSignIn: last.after.tokens.bytes / Math.max(1, signIns),
    bytesPerStoredSignInAtFullScale: tokensAt(last.after) / Math.max(1, signIns / SCALE),
    signInRelations: Object.fromEntries(
      Object.entries(last.tables.token_families.relations).map(([name, bytes]) => [name, bytes / Math.max(1, signIns)]),
    ),
    bytesPerStoredEvent: last.after.events.bytes / Math.max(1, last.tables.movement_events.rows),
    bytesPerStoredMovement: perRow(last.after.movements),
    signInRows: signIns / SCALE,
    eventRows: last.tables.movement_events.rows / MOVEMENT_SCALE,
    tokensBytes: tokensAt(last.after),
    eventsBytes: eventsAt(last.after),
    tokensAndEventsBytes: tokensAt(last.after) + eventsAt(last.after),
    tokensAndEventsPeakBytes: peak,
    tokensBytesDivided: last.after.tokens.bytes / SCALE,
    eventsBytesDivided: last.after.events.bytes / MOVEMENT_SCALE,
    tokensAndEventsPeakBytesDivided: peakDivided,
    movementsBytesPerDay: units ? units.bytesPerMovement * FULL.movements : null,
    goalBytes: 2e9,
    goalMet: peak <= 2e9,
  };
}

/** Whether the tables stopped growing: the last days' token and event bytes within 10% of their mean. */
function flatness(days) {
  const plateau = days.filter((d) => d.day > TTL_DAYS + 1);
  if (plateau.length < 2) return null;
  const spread = (values) => {
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    return (Math.max(...values) - Math.min(...values)) / mean;
  };
  return {
    fromDay: plateau[0].day,
    days: plateau.length,
    tokenRowsSpread: spread(plateau.map((d) => d.after.tokens.rows)),
    tokenBytesSpread: spread(plateau.map((d) => d.after.tokens.bytes)),
    eventRowsSpread: spread(plateau.map((d) => d.after.events.rows)),
    eventBytesSpread: spread(plateau.map((d) => d.after.events.bytes)),
  };
}

const results = {
  name: 'soak',
  startedAt: clock.realIso(),
  command: `node bench/soak.mjs ${process.argv.slice(2).join(' ')}`.trim(),
  machine: {
    cpus: os.cpus().length,
    cpu: os.cpus()[0]?.model,
    node: process.versions.node,
    loadavgAtStart: os.loadavg(),
  },
  settings: {
    days: DAYS,
    scale: SCALE,
    movementScale: MOVEMENT_SCALE,
    users: USERS,
    signInsPerDay: USERS * 2,
    refreshesPerDay: USERS * 2 * REFRESHES_PER_SIGN_IN,
    movementsPerDay: MOVEMENTS_PER_DAY,
    refreshTokenTtlDays: TTL_DAYS,
    eventRetentionHours: RETENTION_HOURS,
    refreshRow: { small: SMALL, big: BIG, rounds: ROUNDS, perRound: PER_ROUND },
  },
  stores: {},
};

try {
  for (const kind of STORES) {
    const entry = {};
    results.stores[kind] = entry;
    if (PHASES.has('units')) entry.units = await unitCosts(kind);
    if (PHASES.has('soak')) {
      const { days, empty } = await soak(kind);
      entry.days = days;
      entry.empty = empty;
      entry.flat = flatness(entry.days);
      entry.fullScale = extrapolate(entry.days, entry.units, empty);
      const f = entry.fullScale;
      log(
        `[${kind}] at ${n(FULL.users)} users: tokens ${mb(f.tokensBytes)} (${n(f.signInRows)} sign-ins), events ${mb(f.eventsBytes)} (${n(f.eventRows)}), ` +
          `${mb(f.tokensAndEventsPeakBytes)} at the peak before housekeeping: goal <= 2 GB ${f.goalMet ? 'met' : 'NOT met'}` +
          ` (all bytes ÷ scale: tokens ${mb(f.tokensBytesDivided)}, peak ${mb(f.tokensAndEventsPeakBytesDivided)})` +
          `; a sign-in ${n(f.bytesPerStoredSignInAtFullScale)} B (${Object.entries(f.signInRelations)
            .map(([name, bytes]) => `${name} ${n(bytes)}`)
            .join(', ')})` +
          (entry.flat
            ? `; flat from day ${entry.flat.fromDay}: token bytes within ${(entry.flat.tokenBytesSpread * 100).toFixed(1)}%, event bytes within ${(entry.flat.eventBytesSpread * 100).toFixed(1)}% over ${entry.flat.days} days`
            : ''),
      );
    }
    if (PHASES.has('refresh')) entry.refreshRow = await refreshRow(kind);
  }
} finally {
  rmSync(tmpDir, { recursive: true, force: true });
}
results.machine.loadavgAtEnd = os.loadavg();
results.seconds = (clock.real() - started) / 1000;
log(
  `soak done in ${(results.seconds / 60).toFixed(1)} min (load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')})`,
);
if (!options['no-results']) {
  const file =
    options.out ??
    path.join(
      BENCH,
      'results',
      `${results.startedAt.replace(/:/g, '-').slice(0, 19)}-soak${QUICK ? '-quick' : ''}.json`,
    );
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  log(`results: ${path.relative(process.cwd(), file)}`);
}
