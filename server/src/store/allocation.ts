/**
 * Address allocation is "read, else insert the next index, retry on conflict": unique constraints decide
 * races, so the same owner always gets the same address, and no two owners share one, across instances too.
 */

export const MAX_ATTEMPTS = 20;

/** True for a unique/primary-key violation on SQLite or PostgreSQL. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE';
}
