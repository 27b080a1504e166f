/** What the store holds of a refresh token, read the way a test needs it (either form: domain/refresh-token.ts). */
import type { Kysely } from 'kysely';
import { hashSecret, hashToken, parseSignInToken } from '../../src/domain/refresh-token.js';
import type { Database } from '../../src/store/schema.js';

/** Whether `token` is its sign-in's live refresh token (issued and not spent); throws for a token never stored. */
export async function isLiveRefreshToken(db: Kysely<Database>, token: string): Promise<boolean> {
  const parsed = parseSignInToken(token);
  if (parsed) {
    const row = await db
      .selectFrom('token_families')
      .select(['generation', 'token_hash'])
      .where('id', '=', parsed.familyId)
      .executeTakeFirstOrThrow();
    return Number(row.generation) === parsed.generation && row.token_hash === hashSecret(parsed.secret);
  }
  const row = await db
    .selectFrom('refresh_tokens')
    .select('used_at')
    .where('token_hash', '=', hashToken(token))
    .executeTakeFirstOrThrow();
  return row.used_at === null;
}
