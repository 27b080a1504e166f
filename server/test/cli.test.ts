/**
 * The operator's commands, run as a user runs them (the built `gateway` binary, a real database):
 * catalogue load and feed imports, with bad input refused whole.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { testConfig } from '../src/config.js';
import { demoFiles } from '../src/operator/commands.js';
import { signIn } from './support/app.js';
import { DATABASES, type DatabaseForProcesses, databaseForProcesses, stoppedPostgresUrl } from './support/databases.js';
import { LAST_MIGRATION, migrateAsNewerRelease, NEWER_FORMAT, NEWER_MIGRATION } from './support/newer-release.js';
import { me } from './support/signers.js';

const run = promisify(execFile);
const CLI = path.resolve(import.meta.dirname, '../dist/cli.js');

describe.each(DATABASES)('gateway commands on %s', (kind) => {
  let dir: string;
  let t: DatabaseForProcesses;
  const gateway = (...args: string[]) =>
    run(process.execPath, [CLI, ...args], { env: { ...process.env, ...t.env, LOG_LEVEL: 'error' } }).then(
      (r) => ({ code: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
    );
  const count = async (table: 'platforms' | 'currency_terms' | 'movements' | 'trades') =>
    Number(
      (
        await t.store.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const file = (name: string, text: string) => {
    const full = path.join(dir, name);
    writeFileSync(full, text);
    return full;
  };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'gateway-cli-'));
    t = await databaseForProcesses(kind, dir);
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('migrate, then load the catalogue twice: the same state (idempotent)', async () => {
    expect((await gateway('migrate')).stdout).toMatch(/applied: 0001/);
    expect((await gateway('migrate')).stdout).toMatch(/up to date/);
    const first = await gateway('catalogue', 'load', demoFiles.catalogue);
    expect(first.code, first.stderr).toBe(0);
    const snapshot = await t.store.db
      .selectFrom('currency_terms')
      .selectAll()
      .orderBy('direction')
      .orderBy('currency_id')
      .orderBy('platform_id')
      .execute();
    expect(snapshot).toHaveLength(18);
    expect((await gateway('catalogue', 'load', demoFiles.catalogue)).code).toBe(0);
    expect(
      await t.store.db
        .selectFrom('currency_terms')
        .selectAll()
        .orderBy('direction')
        .orderBy('currency_id')
        .orderBy('platform_id')
        .execute(),
    ).toEqual(snapshot);
    // Amounts are exact text.
    expect(
      snapshot.find((r) => r.currency_id === 'USDT' && r.platform_id === 'ETH' && r.direction === 'withdrawal'),
    ).toMatchObject({
      min_amount: '20',
      fee_flat: '5',
      fee_rate: '0.001',
    });
  });

  it('a bad catalogue names each entry and field, and changes nothing', async () => {
    const bad = readFileSync(demoFiles.catalogue, 'utf8')
      .replace(
        "min: '0.01', max: '5000', fee_flat: '0', fee_rate: '0' }",
        "min: '0.012345678', max: '5000', fee_flat: '0', fee_rate: '2' }",
      )
      .replace('name: Bitcoin', 'name: Bitcoin Renamed')
      .replace(
        'default_platform: ETH\n    platforms:\n      ETH:\n        platform_asset_id: ETH',
        'default_platform: SOL\n    platforms:\n      ETH:\n        platform_asset_id: ETH',
      );
    const badFile = file('bad.yaml', bad);
    const result = await gateway('catalogue', 'load', badFile);
    expect(result.code).toBe(1);
    expect(result.stderr.startsWith(`${badFile}: the catalogue is invalid:`)).toBe(true);
    expect(result.stderr).toContain(
      'currencies[0] (BNB).platforms.BSC.deposit.min: 0.012345678 has more than 8 decimals',
    );
    expect(result.stderr).toContain('currencies[0] (BNB).platforms.BSC.deposit.fee_rate: must be at most 1');
    expect(result.stderr).toContain('currencies[2] (ETH).default_platform: SOL is not one of its platforms');
    const btc = await t.store.db
      .selectFrom('platforms')
      .select('name')
      .where('id', '=', 'BTC')
      .executeTakeFirstOrThrow();
    expect(btc.name).toBe('Bitcoin');
  });

  it('refuses a catalogue that is not YAML, and an extended private key', async () => {
    expect((await gateway('catalogue', 'load', file('broken.yaml', 'platforms: [unclosed'))).stderr).toMatch(
      /not YAML or JSON/,
    );
    const indented = await gateway('catalogue', 'load', file('indented.yaml', 'platforms:\n  - id: X\n   name: bad\n'));
    expect(indented.stderr).toMatch(/^ {2}not YAML or JSON: .* at line 3, column 1$/m);
    const withPrivate = readFileSync(demoFiles.catalogue, 'utf8').replace(
      /xpub: xpub\S+/,
      'xpub: xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi',
    );
    expect((await gateway('catalogue', 'load', file('private.yaml', withPrivate))).stderr).toMatch(
      /platforms\[0\] \(BSC\)\.xpub/,
    );
  });

  it('refuses a platform that cannot serve its operations, naming the entry and field, and changes nothing', async () => {
    const demo = readFileSync(demoFiles.catalogue, 'utf8');
    const before = await t.store.db.selectFrom('platforms').selectAll().orderBy('id').execute();
    const cases: [string, string, string][] = [
      [
        'evm without xpub',
        demo.replace(/(name: Ethereum\n\s+address_kind: evm)\n\s+xpub: \S+/, '$1'),
        'platforms[2] (ETH).xpub: is required for a platform of kind evm',
      ],
      [
        'bitcoin without xpub',
        demo.replace(/(network: mainnet)\n\s+xpub: \S+/, '$1'),
        'platforms[1] (BTC).xpub: is required for a platform of kind bitcoin',
      ],
      [
        'ledger with an xpub',
        demo.replace('address_kind: ledger', `address_kind: ledger\n    xpub: ${before[0]?.xpub}`),
        'platforms[3] (WAVES).xpub: must not be given for a ledger platform',
      ],
      [
        'a network on an evm platform',
        demo.replace('address_kind: evm', 'address_kind: evm\n    network: mainnet'),
        'platforms[0] (BSC).network: only a bitcoin platform has a network',
      ],
      [
        'a fee on the ledger platform',
        demo.replace(
          "platform_asset_id: WAVES\n        deposit: { status: active, min: '0.00000001', max: '100000', fee_flat: '0'",
          "platform_asset_id: WAVES\n        deposit: { status: active, min: '0.00000001', max: '100000', fee_flat: '0.1'",
        ),
        'currencies[5] (WAVES).platforms.WAVES.deposit.fee_flat: must be 0 on a ledger platform',
      ],
      [
        'a fee rate on a withdrawal on the ledger platform',
        demo.replace(
          "withdrawal: { status: active, min: '0.00000001', max: '100000', fee_flat: '0', fee_rate: '0' }",
          "withdrawal: { status: active, min: '0.00000001', max: '100000', fee_flat: '0', fee_rate: '0.001' }",
        ),
        'currencies[5] (WAVES).platforms.WAVES.withdrawal.fee_rate: must be 0 on a ledger platform',
      ],
      [
        'an empty xpub on the ledger platform',
        demo.replace('address_kind: ledger', "address_kind: ledger\n    xpub: ''"),
        'platforms[3] (WAVES).xpub: must not be given for a ledger platform',
      ],
      [
        'a network on the ledger platform',
        demo.replace('address_kind: ledger', 'address_kind: ledger\n    network: mainnet'),
        'platforms[3] (WAVES).network: only a bitcoin platform has a network',
      ],
    ];
    for (const [name, text, message] of cases) {
      expect(text, name).not.toBe(demo);
      const result = await gateway('catalogue', 'load', file(`${name}.yaml`, text));
      expect(result.code, name).toBe(1);
      expect(result.stderr, name).toContain(message);
    }
    expect(await t.store.db.selectFrom('platforms').selectAll().orderBy('id').execute()).toEqual(before);
  });

  it('imports movements and trades; re-running is harmless; the stored status is the feed’s', async () => {
    const movements = await gateway('movements', 'import', demoFiles.movements);
    expect(movements.code, movements.stderr).toBe(0);
    expect(movements.stdout).toMatch(/60 record\(s\) of 60 line\(s\)/);
    const trades = await gateway('trades', 'import', demoFiles.trades, '--batch-size', '100');
    expect(trades.code, trades.stderr).toBe(0);
    const before = [await count('movements'), await count('trades')];
    await gateway('movements', 'import', demoFiles.movements);
    await gateway('trades', 'import', demoFiles.trades);
    expect([await count('movements'), await count('trades')]).toEqual(before);
    // The feed moves a movement back to in_progress: stored as the feed says, no invented rule refuses it.
    const first = JSON.parse(readFileSync(demoFiles.movements, 'utf8').split('\n')[0] ?? '{}');
    const update = { ...first, status: 'in_progress', updated_at: '2030-01-01T00:00:00+02:00' };
    expect((await gateway('movements', 'import', file('update.ndjson', `${JSON.stringify(update)}\n`))).code).toBe(0);
    const row = await t.store.db
      .selectFrom('movements')
      .selectAll()
      .where('id', '=', first.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'in_progress', updated_at: '2029-12-31T22:00:00.000Z' });
  });

  it('bad lines are reported with their line numbers and nothing of the file is written', async () => {
    const good = readFileSync(demoFiles.trades, 'utf8').split('\n').filter(Boolean);
    const fresh = good.slice(0, 30).map((line, i) => JSON.stringify({ ...JSON.parse(line), id: `fresh${i}` }));
    const lines = [
      ...fresh.slice(0, 10),
      '{"id": "x", "address": "3P9KR33QyXwfTXv8kKtNGZYtgKk3RXSUk37"}',
      ...fresh.slice(10, 20),
      'not json',
      JSON.stringify({
        ...JSON.parse(fresh[0] ?? '{}'),
        id: 'fresh-bad',
        timestamp: '2021-02-30T00:00:00Z',
        price: '-1',
      }),
      ...fresh.slice(20),
    ];
    const before = await count('trades');
    const result = await gateway('trades', 'import', file('bad.ndjson', `${lines.join('\n')}\n`), '--batch-size', '5');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/3 bad line\(s\); nothing was written/);
    expect(result.stderr).toMatch(/line 11: .*address: not a ledger address/);
    expect(result.stderr).toMatch(/line 22: not valid JSON/);
    expect(result.stderr).toMatch(/line 23: .*timestamp: must be an ISO 8601.*price: must be a non-negative decimal/);
    expect(await count('trades')).toBe(before);
  });

  it('a record changing what orders a list is refused in one sentence naming its line; its batch is not written', async () => {
    const [first, second] = readFileSync(demoFiles.movements, 'utf8')
      .split('\n')
      .map((line) => JSON.parse(line || '{}'));
    const lines = [
      JSON.stringify({ ...first, id: 'new-before' }),
      JSON.stringify({ ...second, created_at: '2031-01-01T00:00:00Z' }),
    ];
    const before = await count('movements');
    const moved = file('moved.ndjson', lines.join('\n'));
    const result = await gateway('movements', 'import', moved);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `${moved}: line 2: movement ${second.id} is stored with created_at ${second.created_at}, not 2031-01-01T00:00:00.000Z, ` +
        'and what orders a list does not change once stored; nothing of lines 1–2 was written\n',
    );
    expect(await count('movements')).toBe(before);
  });

  it('a movement of a currency outside the catalogue, or with too many decimals, is refused', async () => {
    const first = JSON.parse(readFileSync(demoFiles.movements, 'utf8').split('\n')[0] ?? '{}');
    const lines = [
      JSON.stringify({ ...first, id: 'new-1', currency_id: 'DOGE' }),
      JSON.stringify({ ...first, id: 'new-2', currency_id: 'USDT', amount: '1.1234567' }),
      JSON.stringify({ ...first, id: 'new-3', status: 'lost' }),
      JSON.stringify({ ...first, id: 'new-4', colour: 'red' }),
    ];
    const result = await gateway('movements', 'import', file('bad-movements.ndjson', lines.join('\n')));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/line 1: currency_id: DOGE is not in the catalogue/);
    expect(result.stderr).toMatch(/line 2: amount: 1\.1234567 has more than 6 decimals/);
    expect(result.stderr).toMatch(/line 3: status: must be one of in_progress, pending_approval, confirmed, rejected/);
    expect(result.stderr).toMatch(/line 4: unknown field\(s\): colour/);
  });

  /** Runs the binary with `input` on its standard input. */
  const gatewayWithInput = (args: string[], input: string) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...t.env, LOG_LEVEL: 'error' } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => {
        stdout += d;
      });
      child.stderr.on('data', (d) => {
        stderr += d;
      });
      child.on('close', (code) => resolve({ code, stdout, stderr }));
      child.stdin.end(input);
    });
  const demoMovement = () => JSON.parse(readFileSync(demoFiles.movements, 'utf8').split('\n')[0] ?? '{}');
  const lines = (prefix: string, n: number, extra: object = {}) =>
    Array.from(
      { length: n },
      (_, i) => `${JSON.stringify({ ...demoMovement(), id: `${prefix}-${i + 1}`, ...extra })}\n`,
    );
  const stored = async (prefix: string) =>
    (
      await t.store.db.selectFrom('movements').select(['id', 'status']).where('id', 'like', `${prefix}-%`).execute()
    ).sort((a, b) => Number(a.id.split('-').at(-1)) - Number(b.id.split('-').at(-1)));

  it('imports movements from standard input (-); a replay changes nothing twice, a new status is taken', async () => {
    const feed = lines(`stdin${kind}`, 10);
    const first = await gatewayWithInput(['movements', 'import', '-', '--batch-size', '3'], feed.join(''));
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/10 record\(s\) of 10 line\(s\) imported from standard input/);
    expect(await stored(`stdin${kind}`)).toHaveLength(10);
    const replay = await gatewayWithInput(['movements', 'import', '-'], feed.join(''));
    expect(replay.code, replay.stderr).toBe(0);
    expect(await stored(`stdin${kind}`)).toHaveLength(10);
    const updated = await gatewayWithInput(
      ['movements', 'import', '-'],
      lines(`stdin${kind}`, 2, { status: 'rejected' }).join(''),
    );
    expect(updated.code, updated.stderr).toBe(0);
    expect((await stored(`stdin${kind}`)).map((m) => m.status).slice(0, 3)).toEqual([
      'rejected',
      'rejected',
      demoMovement().status,
    ]);
  });

  it('a bad line in a stream stops it with its line number; nothing of its batch is written, earlier batches are', async () => {
    const prefix = `badline${kind}`;
    const feed = [...lines(prefix, 4), '{"colour":"red"}\n', ...lines(`${prefix}x`, 2)].join('');
    // Progress lines (indented, at most once a second) come on a slow machine; the refusal is one line.
    const refusal = (stderr: string) => stderr.split('\n').filter((l) => l !== '' && !l.startsWith('  '));
    const whole = await gatewayWithInput(['movements', 'import', '-'], feed);
    expect(whole.code).toBe(1);
    expect(refusal(whole.stderr)).toHaveLength(1);
    expect(refusal(whole.stderr)[0]).toMatch(/^line 5: .*unknown field\(s\): colour; nothing of lines 1–5 was written/);
    expect(await stored(prefix)).toHaveLength(0);
    const batched = await gatewayWithInput(['movements', 'import', '-', '--batch-size', '2'], feed);
    expect(batched.code).toBe(1);
    expect(refusal(batched.stderr)).toHaveLength(1);
    expect(refusal(batched.stderr)[0]).toMatch(
      /^line 5: .*; nothing of line 5 was written \(the 4 record\(s\) before were\)/,
    );
    expect((await stored(prefix)).map((m) => m.id)).toEqual([1, 2, 3, 4].map((i) => `${prefix}-${i}`));
  });

  it('--skip-invalid writes the rest and reports each refused line on standard error, in line order', async () => {
    const prefix = `skip${kind}`;
    const moved = { ...demoMovement(), created_at: '2030-01-01T00:00:00.000Z' }; // changes a stored row's order
    const feed = [...lines(prefix, 2), 'not json\n', `${JSON.stringify(moved)}\n`, ...lines(`${prefix}`, 3)].join('');
    const skipped = await gatewayWithInput(['movements', 'import', '-', '--skip-invalid'], feed);
    expect(skipped.code, skipped.stderr).toBe(0);
    expect(skipped.stderr).toMatch(/^line 3 refused: /m);
    expect(skipped.stderr).toMatch(/^line 4 refused: movement .* created_at/m);
    // In line order, though line 4 is refused by the store when its batch is written, after line 3 was read.
    expect(skipped.stderr.match(/^line \d+ refused/gm)).toEqual(['line 3 refused', 'line 4 refused']);
    // Five records written (two of them again: upserts), two lines refused.
    expect(skipped.stdout).toMatch(/5 record\(s\) of 7 line\(s\) imported from standard input, 2 refused/);
    expect(await stored(prefix)).toHaveLength(3);
  });

  it('--follow: records are visible through the API while the pipe stays open; SIGTERM ends it after whole batches, exit 0', async () => {
    const prefix = `follow${kind}`;
    const config = testConfig({ dataDir: dir, tokenRateLimit: 100_000 });
    const app = await buildApp(config, { store: t.store });
    try {
      const { access_token } = await signIn(app, me);
      const child = spawn(
        process.execPath,
        [CLI, 'movements', 'import', '-', '--follow', '--batch-size', '1000', '--batch-ms', '100'],
        { env: { ...process.env, ...t.env, LOG_LEVEL: 'error' } },
      );
      let stdout = '';
      child.stdout.on('data', (d) => {
        stdout += d;
      });
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      const feed = lines(prefix, 40);
      child.stdin.write(feed.slice(0, 3).join(''));
      const visible = async (id: string) => {
        for (const start = Date.now(); Date.now() - start < 10_000; ) {
          const response = await app.inject({
            url: `/v1/movements/${id}`,
            headers: { authorization: `Bearer ${access_token}` },
          });
          if (response.statusCode === 200) return true;
          expect(response.statusCode).toBe(404);
          await new Promise((r) => setTimeout(r, 50));
        }
        return false;
      };
      expect(await visible(`${prefix}-3`)).toBe(true);
      expect(child.exitCode).toBeNull(); // still following
      // The rest arrives line by line; a stop comes in the middle of it.
      for (const line of feed.slice(3, 25)) child.stdin.write(line);
      await new Promise((r) => setTimeout(r, 50));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      const written = Number(/(\d+) record\(s\)/.exec(stdout)?.[1]);
      expect(stdout).toMatch(/stopped by a signal/);
      const ids = (await stored(prefix)).map((m) => m.id);
      // Whole batches only: what it reports written is stored, a prefix of the stream, nothing else.
      expect(ids).toEqual(Array.from({ length: written }, (_, i) => `${prefix}-${i + 1}`));
      expect(written).toBeGreaterThanOrEqual(3);
    } finally {
      await app.close();
    }
  });

  it('status: the database, its migration, the catalogue version, the keys and the counts', async () => {
    const text = await gateway('status');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`^database: ${kind}, answers$`, 'm'));
    expect(text.stdout).toMatch(new RegExp(`^migration: ${LAST_MIGRATION} \\(up to date\\)$`, 'm'));
    const json = await gateway('status', '--json');
    const status = JSON.parse(json.stdout);
    expect(status).toMatchObject({
      database: { kind, answers: true },
      migrations: { current: LAST_MIGRATION, pending: [] },
      counts: { movements: await count('movements'), trades: await count('trades') },
    });
    expect(status.catalogueVersion).toBeGreaterThan(0);
  });

  it('a bad configuration stops with a clear message', async () => {
    const result = await run(process.execPath, [CLI, 'migrate'], {
      env: { ...process.env, ...t.env, CHAIN_ID: 'X' },
    }).catch((e) => e);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/invalid configuration: .*CHAIN_ID/);
  });
});

describe.each(DATABASES)('gateway commands on a %s database a newer release migrated', (kind) => {
  let dir: string;
  let t: DatabaseForProcesses;
  const gateway = (...args: string[]) =>
    run(process.execPath, [CLI, ...args], { env: { ...process.env, ...t.env, LOG_LEVEL: 'error' } }).then(
      (r) => ({ code: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
    );

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'gateway-cli-'));
    t = await databaseForProcesses(kind, dir);
    expect((await gateway('migrate')).code).toBe(0);
    await migrateAsNewerRelease(t.store.db as unknown as Kysely<unknown>);
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('migrate refuses in one sentence naming the newer migration and what to do, exit 1, and changes nothing', async () => {
    const result = await gateway('migrate');
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `the database is ahead of this release (migration ${NEWER_MIGRATION} is from a newer release; this release's ` +
        `last is ${LAST_MIGRATION}), so there is nothing for its migrate to do: run the newer release's gateway ` +
        'migrate, or nothing if it has run\n',
    );
    const format = await t.store.db.selectFrom('document_format').select('format').executeTakeFirstOrThrow();
    expect(format.format).toBe(NEWER_FORMAT);
  });

  it('status says ahead and lists the newer migration, as text and as JSON', async () => {
    const text = await gateway('status');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(
      new RegExp(
        `^migration: ${NEWER_MIGRATION} \\(ahead of this release: ${NEWER_MIGRATION} from a newer release`,
        'm',
      ),
    );
    expect(text.stdout).not.toMatch(/up to date/);
    const json = JSON.parse((await gateway('status', '--json')).stdout);
    expect(json.migrations).toEqual({
      state: 'ahead',
      current: NEWER_MIGRATION,
      pending: [],
      ahead: [NEWER_MIGRATION],
    });
  });

  it('a catalogue load and an import work on it, each saying once on standard error that it did not migrate', async () => {
    const load = await gateway('catalogue', 'load', demoFiles.catalogue);
    expect(load.code, load.stderr).toBe(0);
    const imported = await gateway('movements', 'import', demoFiles.movements);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toMatch(/record\(s\) of \d+ line\(s\) imported/);
    for (const { stderr } of [load, imported]) {
      expect(stderr.trim().split('\n')).toEqual([
        `the database is ahead of this release (migration ${NEWER_MIGRATION} is from a newer release; this ` +
          `release's last is ${LAST_MIGRATION}): working on it without migrating, and stored documents are not ` +
          'rendered again (that is left to the newer release)',
      ]);
    }
  });
});

describe('gateway status without a database', () => {
  it('says the database does not answer and exits 3', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gateway-cli-'));
    try {
      const env = {
        ...process.env,
        DATABASE_URL: await stoppedPostgresUrl(),
        DATA_DIR: dir,
        TOKEN_SIGNING_KEY: 'unused',
        PROXY_SEED: 'unused',
        CURSOR_SECRET: 'ab'.repeat(32),
      };
      const result = await run(process.execPath, [CLI, 'status'], { env }).catch((e) => e);
      expect(result.code).toBe(3);
      expect(result.stdout).toMatch(/^database: postgres, does NOT answer \(.*ECONNREFUSED.*\)$/m);
      // No wait allowed: exit 3 at once, in one line.
      const migrate = await run(process.execPath, [CLI, 'migrate'], {
        env: { ...env, DATABASE_WAIT_SECONDS: '0' },
      }).catch((e) => e);
      expect(migrate.code).toBe(3);
      expect(migrate.stderr).toMatch(/^the database is unavailable \(.*\)$/m);
      expect(migrate.stderr.trim().split('\n')).toHaveLength(1);
      // A wait: it says it waits, then how long it waited.
      const waited = await run(process.execPath, [CLI, 'migrate'], {
        env: { ...env, DATABASE_WAIT_SECONDS: '1' },
      }).catch((e) => e);
      expect(waited.code).toBe(3);
      expect(waited.stderr.split('\n')[0]).toMatch(
        /^ {2}the database is unavailable \(.*ECONNREFUSED.*\); waiting up to 1 s \(DATABASE_WAIT_SECONDS\) to migrate$/,
      );
      expect(waited.stderr.trim().split('\n').at(-1)).toMatch(
        /^the database is unavailable \(.*ECONNREFUSED.*\) and did not come back within 1 s$/,
      );
      // An import: with --retry-for 0 as before; with a wait, the sentence says what was not written.
      const feed = path.join(dir, 'trades.ndjson');
      writeFileSync(feed, `${readFileSync(demoFiles.trades, 'utf8').split('\n')[0]}\n`);
      const atOnce = await run(process.execPath, [CLI, 'trades', 'import', '-', '--retry-for', '0'], {
        env,
      }).catch((e) => e);
      expect(atOnce.code).toBe(3);
      expect(atOnce.stderr.trim()).toMatch(/^the database is unavailable \(.*ECONNREFUSED.*\)$/);
      const gaveUp = await run(process.execPath, [CLI, 'trades', 'import', feed, '--retry-for', '1'], {
        env,
      }).catch((e) => e);
      expect(gaveUp.code).toBe(3);
      expect(gaveUp.stderr.trim().split('\n').at(-1)).toMatch(
        /^the database is unavailable \(.*ECONNREFUSED.*\) and did not come back within 1 s$/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the command line: help, usage and file errors (no database needed)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'gateway-cli-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const gateway = (...args: string[]) =>
    run(process.execPath, [CLI, ...args], {
      env: { ...process.env, DATABASE_URL: `sqlite:${path.join(dir, 'cli.db')}`, DATA_DIR: dir, LOG_LEVEL: 'error' },
    }).then(
      (r) => ({ code: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
    );

  it('each command has its help; a usage error exits 2 with the help, a missing file exits 1 in one sentence', async () => {
    const general = await gateway('help');
    expect(general.code).toBe(0);
    for (const command of ['serve', 'migrate', 'status', 'catalogue load FILE', 'movements import', 'trades import']) {
      expect(general.stdout).toContain(`gateway ${command}`);
    }
    expect(general.stdout).toMatch(/exit codes:\n\s+0 +done/);
    for (const args of [
      ['serve', '--help'],
      ['help', 'serve'],
      ['status', '--help'],
      ['catalogue', 'load', '--help'],
    ]) {
      const help = await gateway(...args);
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(
        new RegExp(`^usage: gateway ${args.filter((a) => a !== '--help' && a !== 'help').join(' ')}`),
      );
      expect(help.stdout).toContain('exit codes:');
    }
    const importHelp = await gateway('movements', 'import', '--help');
    for (const option of ['--batch-size', '--follow', '--batch-ms', '--skip-invalid']) {
      expect(importHelp.stdout).toContain(option);
    }
    const group = await gateway('movements');
    expect(group.code).toBe(2);
    expect(group.stderr).toMatch(/^unknown command: movements\n\n\s+gateway movements import FILE\|-/);
    const short = await gateway('-h');
    expect(short.code).toBe(0);
    expect(short.stdout).toBe(general.stdout);
    const usages = [
      ['bogus'],
      ['help', 'bogus'],
      ['status', 'extra'],
      ['movements', 'import'],
      ['movements', 'import', '-', '--batch-size', '0'],
      ['movements', 'import', 'file.ndjson', '--follow'],
      ['movements', 'import', '-', '--colour'],
      ['movements', 'import', '-', '--follow', '--batch-ms', '-5'],
      ['status', '--jsn'],
    ];
    const usageAnswers = await Promise.all(usages.map((args) => gateway(...args)));
    expect(usageAnswers[usages.length - 2]?.stderr).toMatch(/^--batch-ms needs a value \(not one starting with -\)\n/);
    expect(usageAnswers[usages.length - 1]?.stderr).toMatch(/^unknown option --jsn\n/);
    for (const [i, args] of usages.entries()) {
      const usage = usageAnswers[i] as Awaited<ReturnType<typeof gateway>>;
      expect(usage.code, args.join(' ')).toBe(2);
      expect(usage.stderr, args.join(' ')).toMatch(/^usage: |^[^\n]+\n\nusage: |^[^\n]+\n\n\s+gateway /);
    }
    const missings = [
      ['catalogue', 'load', path.join(dir, 'missing.yaml')],
      ['movements', 'import', path.join(dir, 'missing.ndjson')],
      ['trades', 'import', dir],
    ];
    const missingAnswers = await Promise.all(missings.map((args) => gateway(...args)));
    for (const [i, args] of missings.entries()) {
      const missing = missingAnswers[i] as Awaited<ReturnType<typeof gateway>>;
      expect(missing.code, args.join(' ')).toBe(1);
      expect(missing.stderr.trim().split('\n'), missing.stderr).toHaveLength(1);
      expect(missing.stderr).toMatch(/^cannot read .*: (no such file|a directory)$/m);
      expect(missing.stderr).not.toMatch(/\bat .*\.js:\d+/);
    }
  }, 120_000);

  it('serve on a port in use: one sentence naming the address and PORT, exit 2', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as net.AddressInfo;
    try {
      const result = await run(process.execPath, [CLI, 'serve'], {
        env: {
          ...process.env,
          DATABASE_URL: `sqlite:${path.join(dir, 'serve.db')}`,
          DATA_DIR: dir,
          HOST: '127.0.0.1',
          PORT: String(port),
          LOG_LEVEL: 'error',
        },
      }).catch((e: { code: number; stderr: string }) => e);
      expect(result).toMatchObject({ code: 2 });
      expect(result.stderr.trim()).toBe(`cannot listen on 127.0.0.1:${port}: the port is in use (set PORT or HOST)`);
    } finally {
      taken.close();
    }
  }, 30_000);

  it('serve asked to export traces over gRPC: one sentence naming the variable and what is supported, exit 2', async () => {
    const result = await run(process.execPath, [CLI, 'serve'], {
      env: {
        ...process.env,
        DATABASE_URL: `sqlite:${path.join(dir, 'serve.db')}`,
        DATA_DIR: dir,
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4317',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_SDK_DISABLED: '',
        LOG_LEVEL: 'error',
      },
    }).catch((e: { code: number; stderr: string }) => e);
    expect(result).toMatchObject({ code: 2 });
    expect(result.stderr.trim()).toBe(
      'invalid configuration: OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported: the gateway exports OTLP over ' +
        'HTTP (http/json or http/protobuf, to the collector’s HTTP port, 4318 by default)',
    );
  });

  it('status of a SQLite file that is not there: does not answer, exits 3, and does not create it', async () => {
    const absent = path.join(dir, 'typo', 'gateway.db');
    const result = await run(process.execPath, [CLI, 'status'], {
      env: { ...process.env, DATABASE_URL: `sqlite:${absent}`, DATA_DIR: dir, LOG_LEVEL: 'error' },
    }).catch((e: { code: number; stdout: string }) => e);
    expect(result).toMatchObject({ code: 3 });
    expect(result.stdout).toMatch(
      new RegExp(`^database: sqlite, does NOT answer \\(no database file at ${absent}\\)$`, 'm'),
    );
    expect(existsSync(path.dirname(absent))).toBe(false);
  });
});
