/** A store whose refresh-token writes fail for a while, as a full disk or a lost connection would make them. */
import { sql } from 'kysely';
import type { TestApp } from './app.js';
import type { DatabaseKind } from './databases.js';

/**
 * Makes every write of a new refresh token to `t`'s database fail during `run`: a sign-in started (its
 * family's row holds its first token), a token issued in a family's row, a row of the old form.
 */
export async function refusingRefreshTokens(t: TestApp, kind: DatabaseKind, run: () => Promise<void>): Promise<void> {
  const triggers = [
    ['refuse_old_form', 'before insert on refresh_tokens'],
    ['refuse_sign_in', 'before insert on token_families'],
    ['refuse_rotation', 'before update of token_hash on token_families'],
  ] as const;
  const table = (when: string) => when.split(' on ')[1] as string;
  if (kind === 'postgres') {
    await sql`create function refuse_refresh() returns trigger language plpgsql as $$ begin raise exception 'refused'; end $$`.execute(
      t.store.db,
    );
  }
  for (const [name, when] of triggers) {
    const body =
      kind === 'sqlite'
        ? `create trigger ${name} ${when} begin select raise(abort, 'refused'); end`
        : `create trigger ${name} ${when} for each row execute function refuse_refresh()`;
    await sql.raw(body).execute(t.store.db);
  }
  try {
    await run();
  } finally {
    for (const [name, when] of triggers) {
      await sql.raw(`drop trigger ${name}${kind === 'sqlite' ? '' : ` on ${table(when)}`}`).execute(t.store.db);
    }
    if (kind === 'postgres') await sql`drop function refuse_refresh()`.execute(t.store.db);
  }
}
