/**
 * Applying this release's migrations (store/migrations.ts), and judging a database's against them first: a
 * database a newer release migrated (`DatabaseAhead`) is left as it is and served on, one whose record fits
 * no order of releases (`MigrationMismatch`) is refused in a sentence of ours, not Kysely's.
 */
import { type Kysely, sql } from 'kysely';
import { type MigrationProvider, Migrator } from 'kysely/migration';
import { migrations } from './migrations.js';
import { isPostgres } from './rows.js';
import type { MigrationState } from './schema.js';

class StaticProvider implements MigrationProvider {
  async getMigrations() {
    return migrations;
  }
}

/** Kysely's record of the migrations applied: one row per name. */
const MIGRATION_TABLE = 'kysely_migration';

/** This release's migrations by name, in the order they apply. */
const known = () => Object.keys(migrations).sort();

/** The database is ahead of this release: migrated by a newer one. Nothing was applied or rendered. */
export class DatabaseAhead extends Error {
  constructor(
    readonly newer: string[],
    readonly latest: string,
  ) {
    super(
      `the database is ahead of this release (${list(newer)} from a newer release; this release's last is ${latest}), ` +
        "so there is nothing for its migrate to do: run the newer release's gateway migrate, or nothing if it has run",
    );
  }

  /** The one line of a command that goes on (`doing`: serving, importing) on the newer schema. */
  notice(doing: string): string {
    return (
      `the database is ahead of this release (${list(this.newer)} from a newer release; this release's last is ` +
      `${this.latest}): ${doing} on it without migrating, and stored documents are not rendered again (that is ` +
      'left to the newer release)'
    );
  }
}

/** The database's migrations do not fit this release (out of order, or some unknown and not newer). */
export class MigrationMismatch extends Error {}

const list = (names: string[]) =>
  names.length === 1 ? `migration ${names[0]} is` : `migrations ${names.join(', ')} are`;

/**
 * Whether Kysely's table exists, in `schema` (PostgreSQL) when given, else where the queries find it: one
 * name asked of the catalogue, not a listing of the schema's tables and columns.
 */
async function hasMigrationTable(db: Kysely<unknown>, schema?: string): Promise<boolean> {
  if (isPostgres(db)) {
    const name = schema ? `"${schema.replaceAll('"', '""')}".${MIGRATION_TABLE}` : MIGRATION_TABLE;
    const { rows } = await sql<{ found: string | null }>`select to_regclass(${name})::text as found`.execute(db);
    return rows[0]?.found != null;
  }
  const { rows } = await sql`select 1 from sqlite_master where type = 'table' and name = ${MIGRATION_TABLE}`.execute(
    db,
  );
  return rows.length > 0;
}

/** The names in Kysely's table (none when it does not exist yet), in `schema` (PostgreSQL) when given. */
async function executedNames(db: Kysely<unknown>, schema?: string): Promise<string[]> {
  if (!(await hasMigrationTable(db, schema))) return [];
  const record = db as Kysely<{ [MIGRATION_TABLE]: { name: string } }>;
  const rows = await (schema ? record.withSchema(schema) : record).selectFrom(MIGRATION_TABLE).select('name').execute();
  return rows.map((r) => r.name).sort();
}

/** Judges the applied names against this release's `names` (sorted): see `MigrationState` (store/schema.ts). */
export function judgeMigrations(executed: string[], names: string[] = known()): MigrationState {
  const done = new Set(executed);
  const applied = names.filter((n) => done.has(n));
  const pending = names.filter((n) => !done.has(n));
  const unknown = executed.filter((n) => !names.includes(n)).sort();
  const last = names.at(-1) ?? '';
  const state = (ahead: string[], problem: string | null): MigrationState => ({ applied, pending, ahead, problem });
  const foreign = unknown.filter((n) => n <= last);
  if (foreign.length > 0) {
    return state(
      [],
      `the database's migrations do not match this release's: ${list(foreign)} not among them and not newer than ` +
        `its last (${last}); it was migrated by another line of releases`,
    );
  }
  const skipped = pending.find((n) => applied.some((a) => a > n));
  if (skipped !== undefined) {
    return state(
      [],
      `the database's migrations are out of order: ${skipped} is not applied although ` +
        `${applied.filter((a) => a > skipped).join(', ')} ${applied.filter((a) => a > skipped).length === 1 ? 'is' : 'are'}`,
    );
  }
  if (unknown.length > 0 && pending.length > 0) {
    return state(
      [],
      `the database has migrations newer than this release's (${unknown.join(', ')}) but not all of its own ` +
        `(${pending.join(', ')} not applied)`,
    );
  }
  return state(unknown, null);
}

/** The migrations applied to the database, judged against this release's (nothing is applied). */
export async function migrationState(db: Kysely<unknown>, schema?: string): Promise<MigrationState> {
  return judgeMigrations(await executedNames(db, schema));
}

/** Throws what keeps this release from migrating the database in `state`, if anything. */
function refuseUnfit(state: MigrationState): void {
  if (state.problem !== null) throw new MigrationMismatch(state.problem);
  if (state.ahead.length > 0) throw new DatabaseAhead(state.ahead, known().at(-1) ?? '');
}

/** The migrator of this store's migrations, its own tables looked for in `schema` (PostgreSQL). */
const migratorOf = (db: Kysely<unknown>, schema?: string) =>
  new Migrator({ db, provider: new StaticProvider(), ...(schema ? { migrationTableSchema: schema } : {}) });

/**
 * Applies every pending migration; safe to run from several instances at once (the migrator locks).
 * `schema` names the PostgreSQL schema the store lives in, where the migrator keeps its own tables (the
 * store's introspection, store/introspection.ts, sees only the current schema's tables). A database ahead
 * of this release throws `DatabaseAhead`, one whose record does not fit it `MigrationMismatch`, before
 * anything is applied.
 */
export async function migrateToLatest(db: Kysely<unknown>, schema?: string): Promise<string[]> {
  refuseUnfit(await migrationState(db, schema));
  // Kysely's migrator finds its tables through the store's introspection, which reads this schema's catalogue
  // only (store/introspection.ts): other schemas coming and going meanwhile do not fail it.
  const { error, results } = await migratorOf(db, schema).migrateToLatest();
  if (error) {
    // A newer release's instance may have migrated since the state was read: say what the database holds.
    refuseUnfit(await migrationState(db, schema));
    throw error instanceof Error ? error : new Error(String(error));
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
