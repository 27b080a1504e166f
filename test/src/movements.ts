/** Feeds the real server from outside, as an exchange's feed would: the CLI in another process. */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../server/dist/cli.js', import.meta.url));
const DEMO_MOVEMENT = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../server/demo/movements.ndjson', import.meta.url)), 'utf8').split('\n')[0] ??
    '',
) as Record<string, unknown>;

/**
 * Imports a new movement of the demo account with the CLI, in another process (as a feed would); `fields`
 * override the demo movement's (`created_at` to place it first in the list, say).
 */
export async function importMovement(
  dataDir: string,
  status = 'in_progress',
  id: string = randomUUID(),
  fields: Record<string, unknown> = {},
): Promise<string> {
  await importMovementsOf(dataDir, [{ id, status, fields }]);
  return id;
}

/**
 * Imports movements with the CLI, in another process, in one batch: each the demo movement with its own id,
 * and `account` (a ledger address: the movement's owner and recipient) and `status` when given.
 */
export function importMovementsOf(
  dataDir: string,
  movements: readonly { id: string; account?: string; status?: string; fields?: Record<string, unknown> }[],
): Promise<void> {
  const lines = movements.map(({ id, account, status = 'in_progress', fields = {} }) =>
    JSON.stringify({
      ...DEMO_MOVEMENT,
      id,
      status,
      updated_at: new Date().toISOString(),
      ...(account ? { account, recipient_address: account } : {}),
      ...fields,
    }),
  );
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'movements', 'import', '-'], {
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: `sqlite:${path.join(dataDir, 'gateway.db')}` },
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let errors = '';
    child.stderr.on('data', (chunk) => {
      errors += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`import exited ${code}: ${errors}`))));
    child.stdin.end(lines.map((line) => `${line}\n`).join(''));
  });
}
