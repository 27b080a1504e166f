/**
 * `gateway status`: what an operator checks first. Whether the database answers and which migration it is
 * at, the catalogue version, the signing key in force and the earlier keys still accepted, and how much is
 * stored. Reads only: nothing is migrated, and no secret is generated.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import { loadSecrets } from '../secrets.js';
import type { Database } from '../store/schema.js';
import type { Store } from '../store/store.js';

export interface Status {
  /** `problem`: why the database does not answer. */
  database: { kind: 'sqlite' | 'postgres'; answers: boolean; problem?: string };
  /**
   * `current`: the last migration applied (a newer release's when the database is `ahead`); `ahead`: the
   * migrations applied by a newer release, unknown to this one; `problem`: why the record does not fit this
   * release otherwise.
   */
  migrations: {
    state: 'up to date' | 'pending' | 'ahead' | 'mismatch';
    current: string | null;
    pending: string[];
    ahead: string[];
    problem?: string;
  } | null;
  catalogueVersion: number | null;
  /** The keys in force; `problem` when they cannot be read; null when none exists yet (embedded mode). */
  keys: { current: string; previous: string[] } | { problem: string } | null;
  counts: {
    movements: number;
    trades: number;
    accounts: number;
    tokenFamilies: number;
    revokedFamilies: number;
  } | null;
}

async function count(db: Kysely<Database>, table: 'movements' | 'trades'): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The signing key's id and the earlier ones accepted, when the keys exist (configured, or in DATA_DIR). */
function keysOf(config: Config): Status['keys'] {
  if (!config.tokenSigningKey && !existsSync(path.resolve(config.dataDir, 'secrets.json'))) return null;
  try {
    const { keyId, verifyingKeys } = loadSecrets(config, () => {});
    return { current: keyId, previous: [...verifyingKeys.keys()].filter((id) => id !== keyId) };
  } catch (error) {
    // Secrets missing (PostgreSQL needs every one set) or unreadable: no key is in force; say why.
    return { problem: error instanceof Error ? error.message : String(error) };
  }
}

/** The status of a database that does not answer, `problem` saying why: the keys only. */
export function unansweredStatus(kind: Status['database']['kind'], problem: string, config: Config): Status {
  return {
    database: { kind, answers: false, problem },
    migrations: null,
    catalogueVersion: null,
    keys: keysOf(config),
    counts: null,
  };
}

export async function readStatus(store: Store, config: Config): Promise<Status> {
  const problem = await store.unanswered();
  if (problem !== null) return unansweredStatus(store.dialect, problem, config);
  const database = { kind: store.dialect, answers: true };
  const keys = keysOf(config);
  const { db } = store;
  const { applied, pending, ahead, problem: mismatch } = await store.migrationState();
  const migrations: NonNullable<Status['migrations']> = {
    state: mismatch !== null ? 'mismatch' : ahead.length > 0 ? 'ahead' : pending.length > 0 ? 'pending' : 'up to date',
    current: ahead.at(-1) ?? applied.at(-1) ?? null,
    pending,
    ahead,
    ...(mismatch !== null ? { problem: mismatch } : {}),
  };
  if (applied.length === 0) return { database, migrations, catalogueVersion: null, keys, counts: null };
  const catalogue = await db.selectFrom('catalogue_version').select('version').where('id', '=', 1).executeTakeFirst();
  const [movements, trades, families] = await Promise.all([
    count(db, 'movements'),
    count(db, 'trades'),
    // One scan: the families, those revoked (a count skips nulls) and the accounts they were issued to.
    db
      .selectFrom('token_families')
      .select((eb) => [
        eb.fn.countAll().as('all'),
        eb.fn.count('revoked_at').as('revoked'),
        eb.fn.count('account').distinct().as('accounts'),
      ])
      .executeTakeFirstOrThrow(),
  ]);
  return {
    database,
    migrations,
    catalogueVersion: catalogue?.version ?? null,
    keys,
    counts: {
      movements,
      trades,
      accounts: Number(families.accounts),
      tokenFamilies: Number(families.all),
      revokedFamilies: Number(families.revoked),
    },
  };
}

/** The status as lines for a terminal. */
export function statusLines(status: Status): string[] {
  const { database, migrations, counts, keys } = status;
  const lines = [
    `database: ${database.kind}, ${database.answers ? 'answers' : `does NOT answer (${database.problem ?? 'no reason given'})`}`,
  ];
  if (migrations) {
    const { state, current, pending, ahead, problem } = migrations;
    const detail = {
      'up to date': 'up to date',
      pending: `pending: ${pending.join(', ')}`,
      ahead: `ahead of this release: ${ahead.join(', ')} from a newer release; this one serves on it without migrating`,
      mismatch: `does not fit this release: ${problem}`,
    }[state];
    lines.push(`migration: ${current ?? 'none applied'} (${detail})`);
  }
  if (database.answers) lines.push(`catalogue version: ${status.catalogueVersion ?? 'none loaded'}`);
  lines.push(
    keys === null
      ? 'signing key: none yet (generated into DATA_DIR at the first start)'
      : 'problem' in keys
        ? `signing key: cannot be read (${keys.problem})`
        : `signing key: ${keys.current}; earlier keys accepted: ${keys.previous.length > 0 ? keys.previous.join(', ') : 'none'}`,
  );
  if (counts) {
    lines.push(
      `stored: ${counts.movements} movements, ${counts.trades} trades, ${counts.accounts} signed-in accounts, ` +
        `${counts.tokenFamilies} token families (${counts.revokedFamilies} revoked)`,
    );
  }
  return lines;
}
