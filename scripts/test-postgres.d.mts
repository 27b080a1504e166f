/** Types of scripts/test-postgres.mjs, for the tests. */
import type { statSync } from 'node:fs';

export const DEFAULT_URL: string;
export interface User {
  uid: number;
  gids: number[];
}
export function findOrStartPostgres(log?: (line: string) => void): Promise<{ url: string; stop: () => Promise<void> }>;
export function folderClosedTo(
  target: string,
  user: User,
  stat?: typeof statSync,
): { folder: string; mode: number } | null;
export function embeddedAccessProblem(options?: {
  binDir?: string | null;
  dataParent?: string;
  user?: User;
  stat?: typeof statSync;
  asRoot?: boolean;
}): string | null;
export default function setup(): Promise<() => Promise<void>>;
