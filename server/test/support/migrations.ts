/**
 * A test store's migrations run one at a time, as an upgrade from an earlier release runs them: for the
 * tests of the migrations themselves and of what an upgrade does to the previous release's data.
 */
import { type Kysely, sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import { migrations } from '../../src/store/migrations.js';
import type { TestStore } from './databases.js';

export interface Stepwise {
  /** The store's database, untyped: the tables as a given migration left them. */
  db: Kysely<unknown>;
  /** The test's own PostgreSQL schema (undefined on SQLite): where its tables are. */
  schema: string | undefined;
  /** Runs the migrations up to and including `name`, failing the test on an error. */
  migrateTo(name: string): Promise<void>;
}

/** The migrations of `t` (opened with `migrate: false`), run one at a time. */
export async function stepwise(t: TestStore): Promise<Stepwise> {
  const db = t.store.db as unknown as Kysely<unknown>;
  const schema =
    t.kind === 'postgres' ? (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0]?.s : undefined;
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  return {
    db,
    schema,
    async migrateTo(name) {
      const { error } = await migrator.migrateTo(name);
      if (error) throw error;
    },
  };
}

/** The names of the migrations in the order they run. */
export const MIGRATION_NAMES = Object.keys(migrations).sort();

/** The last migration before `name`: the schema of the release that did not have `name` yet. */
export function migrationBefore(name: string): string {
  if (!(name in migrations)) throw new Error(`no migration ${name}`);
  const before = MIGRATION_NAMES.filter((n) => n < name).at(-1);
  if (!before) throw new Error(`${name} is the first migration`);
  return before;
}
