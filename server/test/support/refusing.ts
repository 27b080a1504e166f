/** A store whose refresh-token inserts fail for a while, as a full disk or a lost connection would make them. */
import { sql } from 'kysely';
import type { TestApp } from './app.js';
import type { DatabaseKind } from './databases.js';

/** Makes every insert into refresh_tokens of `t`'s database fail during `run`. */
export async function refusingRefreshTokens(t: TestApp, kind: DatabaseKind, run: () => Promise<void>): Promise<void> {
  const refuse =
    kind === 'sqlite'
      ? [sql`create trigger refuse_refresh before insert on refresh_tokens begin select raise(abort, 'refused'); end`]
      : [
          sql`create function refuse_refresh() returns trigger language plpgsql as $$ begin raise exception 'refused'; end $$`,
          sql`create trigger refuse_refresh before insert on refresh_tokens for each row execute function refuse_refresh()`,
        ];
  for (const statement of refuse) await statement.execute(t.store.db);
  try {
    await run();
  } finally {
    await sql`drop trigger refuse_refresh${kind === 'sqlite' ? sql`` : sql` on refresh_tokens`}`.execute(t.store.db);
    if (kind === 'postgres') await sql`drop function refuse_refresh()`.execute(t.store.db);
  }
}
