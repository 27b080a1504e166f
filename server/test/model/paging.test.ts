/**
 * Model-based: cursor walks of an account's movements and of an address's trades, read through the HTTP
 * app with real signed cursors, interleaved with feed imports (the import the `gateway` command runs) of new
 * rows at any time, status and price updates, identical re-imports and re-imports that try to move a row's
 * time (refused, nothing of the file written). A walk sees every row that existed throughout it exactly
 * once, in the documented order, and nothing of another account; rows added during it at most once.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoFiles, importMovements, importTrades } from '../../src/operator/commands.js';
import { ImportConflict } from '../../src/operator/stream-refusals.js';
import { signIn, type TestApp, testApp } from '../support/app.js';
import { DATABASES } from '../support/databases.js';
import { checkModel, modelRuns, StepCounter } from '../support/model.js';
import { DEMO_SEED, ledgerUser } from '../support/signers.js';

type List = 'movements' | 'trades';
type Sort = 'asc' | 'desc';
const LISTS: readonly List[] = ['movements', 'trades'];
const STATUSES = ['in_progress', 'pending_approval', 'confirmed', 'rejected'] as const;
const PRICES = ['1.5', '2.25', '15.96315', '40000'] as const;
/** Few distinct times, so that rows share them and new ones land before and after any cursor. */
const TIMES = Array.from({ length: 12 }, (_, k) => new Date(Date.UTC(2024, 0, 1, 0, k * 7)).toISOString());

const template = (file: string) => JSON.parse(readFileSync(file, 'utf8').split('\n')[0] ?? '{}');
const MOVEMENT = template(demoFiles.movements);
const TRADE = template(demoFiles.trades);

interface Row {
  id: string;
  time: string;
  /** A movement's status, a trade's price. */
  value: string;
}

interface Walk {
  sort: Sort;
  cursor: string | null;
  seen: string[];
  /** The rows that existed when the walk began: each must be seen exactly once. */
  present: Set<string>;
}

interface ListModel {
  rows: Map<string, Row>;
  walk: Walk | null;
}

interface Model {
  lists: Record<List, ListModel>;
}

interface Real {
  t: TestApp;
  authorization: string;
  mine: string;
  theirs: string;
  dir: string;
  files: number;
  /** Ids are unique across sequences (a movement's id is its key): the sequence's tag and a count. */
  tag: number;
  ids: number;
}

/** Letters and digits of one width: the same order as text in either database's collation. */
const newId = (real: Real, list: List) => `${list[0]}${real.tag}x${String(real.ids++).padStart(4, '0')}`;

const feedLine = (list: List, row: Row, owner: string) =>
  list === 'movements'
    ? { ...MOVEMENT, id: row.id, account: owner, status: row.value, created_at: row.time }
    : { ...TRADE, id: row.id, address: owner, timestamp: row.time, price: row.value };

async function importLines(real: Real, list: List, lines: readonly object[]) {
  const file = path.join(real.dir, `feed-${real.files++}.ndjson`);
  writeFileSync(file, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
  return (list === 'movements' ? importMovements : importTrades)(real.t.store, file, 'W');
}

const order = (sort: Sort) => (a: Row, b: Row) => {
  const ascending = a.time === b.time ? (a.id < b.id ? -1 : 1) : a.time < b.time ? -1 : 1;
  return sort === 'asc' ? ascending : -ascending;
};

/** New rows, of the walked account or of another one (which no walk may show). */
class ImportNew implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly list: List,
    readonly rows: readonly { mine: boolean; time: number; value: number }[],
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const made = this.rows.map((r) => ({
      mine: r.mine,
      row: {
        id: newId(real, this.list),
        time: TIMES[r.time] as string,
        value: this.value(r.value),
      },
    }));
    const lines = made.map(({ mine, row }) => feedLine(this.list, row, mine ? real.mine : real.theirs));
    expect(await importLines(real, this.list, lines)).toEqual({ lines: lines.length, written: lines.length });
    for (const { mine, row } of made) if (mine) model.lists[this.list].rows.set(row.id, row);
  }
  value(i: number) {
    return (this.list === 'movements' ? STATUSES[i % STATUSES.length] : PRICES[i % PRICES.length]) as string;
  }
  toString = () => `import ${this.list} ${JSON.stringify(this.rows)}`;
}

/** A re-import of an existing row: identical, or with another status (price). */
class Update implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly list: List,
    readonly pick: number,
    readonly value: number | null,
  ) {}
  check = (model: Readonly<Model>) => model.lists[this.list].rows.size > 0;
  async run(model: Model, real: Real) {
    const rows = [...model.lists[this.list].rows.values()];
    const stored = rows[this.pick % rows.length] as Row;
    const values = this.list === 'movements' ? STATUSES : PRICES;
    const row = {
      ...stored,
      value: this.value === null ? stored.value : (values[this.value % values.length] as string),
    };
    expect(await importLines(real, this.list, [feedLine(this.list, row, real.mine)])).toEqual({
      lines: 1,
      written: 1,
    });
    model.lists[this.list].rows.set(row.id, row);
  }
  toString = () => `update ${this.list} #${this.pick} to ${this.value ?? 'the same'}`;
}

/** A file whose last line moves an existing row to another time: refused, nothing of it written. */
class MoveTime implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly list: List,
    readonly pick: number,
    readonly shift: number,
    readonly withNew: boolean,
  ) {}
  check = (model: Readonly<Model>) => model.lists[this.list].rows.size > 0;
  async run(model: Model, real: Real) {
    const rows = [...model.lists[this.list].rows.values()];
    const stored = rows[this.pick % rows.length] as Row;
    const time = TIMES[(TIMES.indexOf(stored.time) + this.shift) % TIMES.length] as string;
    const fresh = { id: newId(real, this.list), time, value: stored.value };
    const lines = [...(this.withNew ? [fresh] : []), { ...stored, time }].map((row) =>
      feedLine(this.list, row, real.mine),
    );
    const refusal = importLines(real, this.list, lines);
    await expect(refusal).rejects.toBeInstanceOf(ImportConflict);
    await expect(refusal).rejects.toThrow(
      new RegExp(`^line ${lines.length}: \\S+ ${stored.id} .* ${stored.time}, not ${time}`),
    );
  }
  toString = () => `move ${this.list} #${this.pick} by ${this.shift}${this.withNew ? ' after a new row' : ''}`;
}

/** The next page of the list's walk (a new walk when none is under way). */
class Page implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly list: List,
    readonly limit: number,
    readonly sort: Sort,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const list = model.lists[this.list];
    const walk: Walk = list.walk ?? {
      // Movements are listed newest first only.
      sort: this.list === 'movements' ? 'desc' : this.sort,
      cursor: null,
      seen: [],
      present: new Set(list.rows.keys()),
    };
    list.walk = walk;
    const query = `limit=${this.limit}${this.list === 'trades' ? `&sort=${walk.sort}` : ''}${walk.cursor ? `&after=${walk.cursor}` : ''}`;
    const url =
      this.list === 'movements' ? `/v1/movements?${query}` : `/v1/addresses/${real.mine}/trades/WAVES/USDT?${query}`;
    const response = await real.t.app.inject({ url, headers: { authorization: real.authorization } });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as {
      items: { id: string; created_at?: string; timestamp?: string; status?: string; price?: number }[];
      page_info: { has_next_page: boolean; last_cursor: string | null };
    };
    expect(body.items.length).toBeLessThanOrEqual(this.limit);
    for (const item of body.items) {
      // Only the walked account's rows, as they are now.
      const row = list.rows.get(item.id);
      expect(row, `${item.id} is not a row of the walked account`).toBeDefined();
      expect(this.list === 'movements' ? item.created_at : item.timestamp).toBe(row?.time);
      if (this.list === 'movements') expect(item.status).toBe(row?.value);
      else expect(item.price).toBe(Number(row?.value));
    }
    walk.seen.push(...body.items.map((item) => item.id));
    expect(body.page_info.last_cursor === null).toBe(!body.page_info.has_next_page);
    walk.cursor = body.page_info.last_cursor;
    // Never a duplicate, always in the documented order (times never change, so the model's are theirs).
    expect(new Set(walk.seen).size).toBe(walk.seen.length);
    const seenRows = walk.seen.map((id) => list.rows.get(id) as Row);
    expect(seenRows).toEqual([...seenRows].sort(order(walk.sort)));
    if (walk.cursor === null) {
      const missed = [...walk.present].filter((id) => !walk.seen.includes(id));
      expect(missed, 'rows that existed throughout the walk were not seen').toEqual([]);
      list.walk = null;
    }
  }
  toString = () => `page of ${this.list}, ${this.limit}${this.list === 'trades' ? ` ${this.sort}` : ''}`;
}

const list = fc.constantFrom(...LISTS);
const commands = fc.commands(
  [
    fc
      .tuple(
        list,
        fc.array(
          fc.record({
            mine: fc.boolean(),
            time: fc.nat({ max: TIMES.length - 1 }),
            value: fc.nat({ max: 3 }),
          }),
          { minLength: 1, maxLength: 4 },
        ),
      )
      .map(([l, rows]) => new ImportNew(l, rows)),
    fc.tuple(list, fc.nat(), fc.option(fc.nat({ max: 3 }))).map(([l, pick, value]) => new Update(l, pick, value)),
    fc
      .tuple(list, fc.nat(), fc.integer({ min: 1, max: TIMES.length - 1 }), fc.boolean())
      .map(([l, pick, shift, withNew]) => new MoveTime(l, pick, shift, withNew)),
    fc
      .tuple(list, fc.integer({ min: 1, max: 6 }), fc.constantFrom<Sort>('asc', 'desc'))
      .map(([l, limit, sort]) => new Page(l, limit, sort)),
  ],
  // Sequences of up to 20 steps, not the few the default size gives: walks must span imports.
  { maxCommands: 20, size: 'max' },
);

describe.each(DATABASES)('model: cursor walks during feed imports on %s', (kind) => {
  let t: TestApp;
  let dir: string;
  let accounts = 0;
  const counter = new StepCounter();
  beforeAll(async () => {
    t = await testApp(kind, { demo: true });
    dir = mkdtempSync(path.join(tmpdir(), 'gateway-model-'));
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('every walk sees the rows present throughout it once, in order, and only its own', async () => {
    const property = fc.asyncProperty(commands, async (cmds) => {
      // Fresh accounts each sequence: the database is shared by the sequences, the model is not.
      const tag = 1000 + accounts;
      accounts += 2;
      const mine = ledgerUser(DEMO_SEED, 'W', tag);
      const theirs = ledgerUser(DEMO_SEED, 'W', tag + 1);
      const real: Real = {
        t,
        authorization: `Bearer ${(await signIn(t.app, mine)).access_token}`,
        mine: mine.address,
        theirs: theirs.address,
        dir,
        files: 0,
        tag,
        ids: 0,
      };
      const model: Model = {
        lists: { movements: { rows: new Map(), walk: null }, trades: { rows: new Map(), walk: null } },
      };
      counter.sequences++;
      await fc.asyncModelRun(
        () => ({ model, real }),
        [...cmds].map((c) => counted(c, counter)),
      );
      // Walks left under way are walked to their end, and checked there.
      for (const name of LISTS) {
        const sort = model.lists[name].walk?.sort ?? 'desc';
        while (model.lists[name].walk !== null) {
          counter.steps++;
          await new Page(name, 5, sort).run(model, real);
        }
      }
    });
    await checkModel(`paging-${kind}`, property, counter, modelRuns(6));
  });
});

function counted(command: fc.AsyncCommand<Model, Real>, counter: StepCounter): fc.AsyncCommand<Model, Real> {
  return {
    check: (m) => command.check(m),
    run: async (m, r) => {
      counter.steps++;
      await command.run(m, r);
    },
    toString: () => command.toString(),
  };
}
