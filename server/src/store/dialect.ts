/** Which database a Kysely instance talks to, for the few statements the two write differently. */
import { type Kysely, PostgresAdapter } from 'kysely';

export const isPostgres = <T>(db: Kysely<T>): boolean => db.getExecutor().adapter instanceof PostgresAdapter;
