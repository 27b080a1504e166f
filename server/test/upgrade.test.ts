/**
 * Rolling upgrades and rollbacks: a release's migrations are expand-only, so a release runs on the schema of
 * the next one. A database a newer release migrated (a migration this code does not know, applied as the
 * rule allows) is served as it is: not migrated, its documents not rendered again, said in one log line;
 * `migrate` refuses it in one sentence and `status` says it is ahead. A record that fits this release in no
 * such way is refused in one sentence of the gateway's, not Kysely's.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { type Config, testConfig } from '../src/config.js';
import { importMovements, loadDemoIfEmpty } from '../src/operator/commands.js';
import { readStatus, statusLines } from '../src/operator/status.js';
import { migrations } from '../src/store/migrations.js';
import { DatabaseAhead, judgeMigrations, MigrationMismatch } from '../src/store/migrator.js';
import { signIn } from './support/app.js';
import { createTestStore, DATABASES, type TestStore } from './support/databases.js';
import { LAST_MIGRATION, migrateAsNewerRelease, NEWER_FORMAT, NEWER_MIGRATION } from './support/newer-release.js';
import { me } from './support/signers.js';

const ALL = Object.keys(migrations).sort();

describe.each(DATABASES)('a %s database a newer release migrated', (kind) => {
  let t: TestStore;
  let dir: string;
  let config: Config;
  /** A stored movement, its document as the newer release rendered it. */
  let marked: { id: string; document: string };
  const format = async () =>
    (await t.store.db.selectFrom('document_format').select('format').executeTakeFirstOrThrow()).format;

  beforeAll(async () => {
    t = await createTestStore(kind);
    dir = mkdtempSync(path.join(tmpdir(), 'gateway-upgrade-'));
    config = testConfig({ dataDir: dir, tokenRateLimit: 100_000 });
    await loadDemoIfEmpty(t.store, config.chainId);
    await migrateAsNewerRelease(t.store.db as unknown as Kysely<unknown>);
    const row = await t.store.db.selectFrom('movements').select(['id', 'document']).limit(1).executeTakeFirstOrThrow();
    marked = { id: row.id, document: JSON.stringify({ ...JSON.parse(row.document), memo: 'newer rendering' }) };
    await t.store.db.updateTable('movements').set({ document: marked.document }).where('id', '=', marked.id).execute();
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is ahead: the state names the newer migration, and migrate refuses in one sentence, applying and rendering nothing', async () => {
    expect(await t.store.migrationState()).toEqual({
      applied: ALL,
      pending: [],
      ahead: [NEWER_MIGRATION],
      problem: null,
    });
    const refusal = await t.store.migrate().catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(DatabaseAhead);
    expect((refusal as Error).message).toBe(
      `the database is ahead of this release (migration ${NEWER_MIGRATION} is from a newer release; this release's ` +
        `last is ${LAST_MIGRATION}), so there is nothing for its migrate to do: run the newer release's gateway ` +
        'migrate, or nothing if it has run',
    );
    expect(await format()).toBe(NEWER_FORMAT);
  });

  it('status says ahead and lists the newer migration, instead of up to date', async () => {
    const status = await readStatus(t.store, config);
    expect(status.migrations).toEqual({
      state: 'ahead',
      current: NEWER_MIGRATION,
      pending: [],
      ahead: [NEWER_MIGRATION],
    });
    expect(statusLines(status)).toContain(
      `migration: ${NEWER_MIGRATION} (ahead of this release: ${NEWER_MIGRATION} from a newer release; this one ` +
        'serves on it without migrating)',
    );
    expect(status.counts?.movements).toBeGreaterThan(0);
  });

  it('the app starts and serves on it, says so in one log line, and leaves the documents in the newer rendering', async () => {
    const logs: string[] = [];
    const app = await buildApp(
      { ...config, logLevel: 'info' },
      { store: t.store, logStream: { write: (line) => logs.push(line) } },
    );
    try {
      const notices = logs.filter((line) => line.includes('ahead of this release'));
      expect(notices).toHaveLength(1);
      expect(JSON.parse(notices[0] as string)).toMatchObject({
        level: 40,
        msg:
          `the database is ahead of this release (migration ${NEWER_MIGRATION} is from a newer release; this ` +
          `release's last is ${LAST_MIGRATION}): serving on it without migrating, and stored documents are not ` +
          'rendered again (that is left to the newer release)',
      });
      expect((await app.inject({ url: '/v1/platforms' })).statusCode).toBe(200);

      // The store's write path works on the newer schema: an import, read back through the API.
      const feed = path.join(dir, 'movement.ndjson');
      const id = `upgrade-${kind}`;
      writeFileSync(
        feed,
        `${JSON.stringify({
          id,
          account: me.address,
          direction: 'deposit',
          status: 'confirmed',
          source_platform_id: 'BTC',
          destination_platform_id: 'WAVES',
          currency_id: 'BTC',
          amount: '0.5',
          fee: '0',
          created_at: '2024-05-01T00:00:00.000Z',
          updated_at: '2024-05-01T00:00:00.000Z',
          recipient_address: me.address,
          transactions: [],
        })}\n`,
      );
      expect((await importMovements(t.store, feed, config.chainId)).written).toBe(1);
      const { access_token } = await signIn(app, me);
      const read = await app.inject({
        url: `/v1/movements/${id}`,
        headers: { authorization: `Bearer ${access_token}` },
      });
      expect(read.statusCode, read.body).toBe(200);
      expect(read.json()).toMatchObject({ id, amount: 0.5 });

      // Not rendered again: the newer release's documents and format stay.
      expect(
        await t.store.db.selectFrom('movements').select('document').where('id', '=', marked.id).executeTakeFirst(),
      ).toEqual({ document: marked.document });
      expect(await format()).toBe(NEWER_FORMAT);
    } finally {
      await app.close();
    }
    // One line per start, not one per request.
    expect(logs.filter((line) => line.includes('ahead of this release'))).toHaveLength(1);
  });
});

describe('judging a record of applied migrations against this release', () => {
  const names = ['0001_a', '0002_b', '0003_c'];

  it('behind, up to date and ahead are told apart; ahead lists the newer migrations in order', () => {
    expect(judgeMigrations([], names)).toEqual({ applied: [], pending: names, ahead: [], problem: null });
    expect(judgeMigrations(['0001_a'], names)).toMatchObject({ pending: ['0002_b', '0003_c'], ahead: [] });
    expect(judgeMigrations(names, names)).toEqual({ applied: names, pending: [], ahead: [], problem: null });
    expect(judgeMigrations([...names, '0010_e', '0004_d'], names)).toEqual({
      applied: names,
      pending: [],
      ahead: ['0004_d', '0010_e'],
      problem: null,
    });
  });

  it('newer migrations with some of its own missing is a mismatch, in one sentence', () => {
    expect(judgeMigrations(['0001_a', '0002_b', '0004_d'], names)).toMatchObject({
      ahead: [],
      problem:
        "the database has migrations newer than this release's (0004_d) but not all of its own (0003_c not applied)",
    });
  });
});

describe.each(DATABASES)('a %s database whose migrations do not fit this release', (kind) => {
  const refusalOf = async (change: (db: Kysely<unknown>) => Promise<unknown>) => {
    const t = await createTestStore(kind);
    const dir = mkdtempSync(path.join(tmpdir(), 'gateway-upgrade-'));
    try {
      await change(t.store.db as unknown as Kysely<unknown>);
      const byMigrate = await t.store.migrate().catch((error: unknown) => error);
      const atStart = await buildApp(testConfig({ dataDir: dir }), { store: t.store }).catch((error: unknown) => error);
      expect(byMigrate).toBeInstanceOf(MigrationMismatch);
      expect(atStart).toBeInstanceOf(MigrationMismatch);
      expect((atStart as Error).message).toBe((byMigrate as Error).message);
      expect((await readStatus(t.store, testConfig({ dataDir: dir }))).migrations).toMatchObject({
        state: 'mismatch',
        problem: (byMigrate as Error).message,
      });
      return (byMigrate as Error).message;
    } finally {
      await t.close();
      rmSync(dir, { recursive: true, force: true });
    }
  };

  it('one of its migrations missing before later ones: out of order, in one sentence', async () => {
    expect(
      await refusalOf((db) => sql`delete from kysely_migration where name = '0003_catalogue_version'`.execute(db)),
    ).toBe(
      "the database's migrations are out of order: 0003_catalogue_version is not applied although " +
        ALL.filter((name) => name > '0003_catalogue_version').join(', ') +
        ' are',
    );
  });

  it('a migration it does not know that is not newer than its last: another line of releases', async () => {
    expect(
      await refusalOf((db) =>
        sql`insert into kysely_migration (name, timestamp) values ('0004a_elsewhere', ${new Date().toISOString()})`.execute(
          db,
        ),
      ),
    ).toBe(
      "the database's migrations do not match this release's: migration 0004a_elsewhere is not among them and " +
        `not newer than its last (${LAST_MIGRATION}); it was migrated by another line of releases`,
    );
  });
});
