/**
 * For the tests of feed and catalogue imports: a test store holding the demo catalogue, and files written in
 * a folder of the test's own, both made before the describe block's tests and removed after them.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { loadDemoIfEmpty } from '../../src/operator/commands.js';
import type { Database } from '../../src/store/schema.js';
import { createTestStore, type DatabaseKind, type TestStore } from './databases.js';

export interface ImportFixture {
  /** The store (set once the describe block's `beforeAll` has run). */
  readonly t: TestStore;
  /** A new file holding `text`; its path. */
  file(text: string): string;
  /** A new feed file: one line of JSON a record. */
  feed(records: readonly object[]): string;
  /** The rows of `table`. */
  count(table: keyof Database): Promise<number>;
}

/** Registers the fixture's set-up and clean-up in the enclosing describe block. */
export function importFixture(kind: DatabaseKind): ImportFixture {
  let t: TestStore | undefined;
  let dir = '';
  let files = 0;
  beforeAll(async () => {
    t = await createTestStore(kind);
    await loadDemoIfEmpty(t.store, 'W');
    dir = mkdtempSync(path.join(tmpdir(), 'gateway-import-'));
  });
  afterAll(async () => {
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const store = () => {
    if (!t) throw new Error('the import fixture is used before its beforeAll ran');
    return t;
  };
  const file = (text: string) => {
    const name = path.join(dir, `file-${files++}.ndjson`);
    writeFileSync(name, text);
    return name;
  };
  return {
    get t() {
      return store();
    },
    file,
    feed: (records) => file(records.map((r) => `${JSON.stringify(r)}\n`).join('')),
    count: async (table) =>
      Number(
        (
          await store()
            .store.db.selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      ),
  };
}
