/**
 * The rule of rolling upgrades: a release's migrations are expand-only (new tables, nullable or defaulted
 * columns, indexes), so that the release before it runs on its schema; a destructive step (dropping or
 * renaming a table or column, narrowing a column) comes in a later release, once no instance of the old one
 * is left. Held two ways: no migration's code holds a destructive statement (unless listed in EXEMPT, with
 * the reason it is safe, after review), and on both databases each migration keeps every table and column
 * of the schema before it, with its type and without making a nullable column required.
 */
import { type Kysely, sql, type TableMetadata } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrations } from '../../src/store/migrations.js';
import { createTestStore, DATABASES } from '../support/databases.js';
import { MIGRATION_NAMES, stepwise } from '../support/migrations.js';

const RULE =
  "a release's migrations are expand-only, so that the previous release runs on its schema: drop, rename or " +
  'narrow in a later release, once no instance of the previous one is left (docs: "Upgrades and rollbacks")';

/** Migrations allowed a destructive statement, by name, with why (reviewed): none so far. */
const EXEMPT: Record<string, string> = {};

/** Destructive statements: the schema builder's, and the same written as SQL. Dropping an index is not one. */
const DESTRUCTIVE = [
  /\.(dropTable|dropColumn|renameColumn|renameTo|alterColumn|modifyColumn|dropConstraint|dropSchema|dropType|dropView|deleteFrom)\(/g,
  /\b(drop\s+(table|column|schema|type|view|function|trigger|constraint)|rename\s+(to|column)|alter\s+column|truncate|delete\s+from)\b/gi,
];

/** The destructive statements in a migration's source. */
function destructiveStatements(source: string): string[] {
  return DESTRUCTIVE.flatMap((pattern) => [...source.matchAll(pattern)].map((m) => m[0]));
}

describe('migrations are expand-only', () => {
  it('finds the destructive statements it looks for (builder and SQL), and not an index dropped or a table created', () => {
    expect(
      destructiveStatements(`db.schema.alterTable('movements').dropColumn('fee').execute();
        db.schema.alterTable('trades').renameColumn('price', 'rate'); db.schema.dropTable('x');
        db.schema.alterTable('a').alterColumn('b', (c) => c.setNotNull());
        sql\`alter table movements rename column fee to fees\`; sql\`DROP TABLE trades\`;
        sql\`alter table a alter column b set not null\``),
    ).toEqual([
      '.dropColumn(',
      '.renameColumn(',
      '.dropTable(',
      '.alterColumn(',
      'rename column',
      'DROP TABLE',
      'alter column',
    ]);
    expect(
      destructiveStatements(`db.schema.dropIndex('trades_by_pair_and_time'); db.schema.createTable('t');
        sql\`create index trades_page on trades (id)\`; db.schema.alterTable('m').addColumn('memo', 'text')`),
    ).toEqual([]);
  });

  it('no migration holds a destructive statement', () => {
    const found = Object.entries(migrations)
      .filter(([name]) => !(name in EXEMPT))
      .flatMap(([name, migration]) =>
        destructiveStatements(migration.up.toString()).map((statement) => `${name}: ${statement}`),
      );
    expect(found, RULE).toEqual([]);
  });

  it('every exemption names a migration that exists', () => {
    expect(Object.keys(EXEMPT).filter((name) => !(name in migrations))).toEqual([]);
  });
});

/** Tables by name, each its columns by name, as the database describes them. */
type Shape = Map<string, Map<string, { dataType: string; isNullable: boolean; hasDefaultValue: boolean }>>;

async function shapeOf(db: Kysely<unknown>, schema: string | undefined): Promise<Shape> {
  const tables = await db.introspection.getTables();
  return new Map(
    tables
      .filter((t: TableMetadata) => !t.isView && (!schema || t.schema === schema))
      .map((t) => [t.name, new Map(t.columns.map((c) => [c.name, c]))]),
  );
}

/** What a migration took from the schema before it: tables, columns, types, nullability. */
function narrowings(before: Shape, after: Shape): string[] {
  const found: string[] = [];
  for (const [table, columns] of before) {
    const now = after.get(table);
    if (!now) {
      found.push(`table ${table} is gone`);
      continue;
    }
    for (const [name, column] of columns) {
      const current = now.get(name);
      if (!current) found.push(`column ${table}.${name} is gone`);
      else if (current.dataType !== column.dataType)
        found.push(`column ${table}.${name} changed type (${column.dataType} to ${current.dataType})`);
      else if (column.isNullable && !current.isNullable) found.push(`column ${table}.${name} became required`);
    }
    for (const [name, column] of now) {
      if (!columns.has(name) && !column.isNullable && !column.hasDefaultValue)
        found.push(`column ${table}.${name} was added required without a default (the previous release cannot insert)`);
    }
  }
  return found;
}

describe.each(DATABASES)('each migration on %s keeps the schema before it', (kind) => {
  it('every table and column stays, with its type, nullable ones nullable; added columns are nullable or defaulted', async () => {
    const t = await createTestStore(kind, { migrate: false });
    try {
      const { db, schema, migrateTo } = await stepwise(t);
      const found: string[] = [];
      let before = await shapeOf(db, schema);
      for (const name of MIGRATION_NAMES) {
        await migrateTo(name);
        const after = await shapeOf(db, schema);
        if (!(name in EXEMPT)) found.push(...narrowings(before, after).map((n) => `${name}: ${n}`));
        before = after;
      }
      expect(found, RULE).toEqual([]);
    } finally {
      await t.close();
    }
  }, 60_000);

  it('sees a column dropped, renamed or made required (the check is not vacuous)', async () => {
    const t = await createTestStore(kind);
    try {
      const { db, schema } = await stepwise(t);
      const before = await shapeOf(db, schema);
      await sql`alter table movements drop column fee`.execute(db);
      await sql`alter table trades rename column price to rate`.execute(db);
      await sql`alter table platforms add column region text not null default 'eu'`.execute(db);
      await sql`alter table staking_yields add column note text`.execute(db);
      expect(narrowings(before, await shapeOf(db, schema))).toEqual([
        'column movements.fee is gone',
        'column trades.price is gone',
        'column trades.rate was added required without a default (the previous release cannot insert)',
      ]);
      if (kind === 'postgres') {
        await sql`alter table platforms alter column network set not null`.execute(db);
        expect(narrowings(before, await shapeOf(db, schema))).toContain('column platforms.network became required');
      }
    } finally {
      await t.close();
    }
  });
});
