/**
 * Backups an operator can trust (docs/deployment.md, "Backups"): `gateway backup` copies the embedded
 * database of a serving instance while refreshes write to it, the copy passes `integrity_check`, a restore
 * refuses a database that is open and puts the copy back once the server stopped, and a sign-in made before
 * the backup still refreshes after the restore. Also: the write-ahead log is cut back while serving, after a
 * large import made it grow.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway } from '../src/gateway.js';
import { passwordGrant } from '../src/sign-in.js';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../../server/dist/cli.js', import.meta.url));
const DEMO_ADDRESS = '3P9KR33QyXwfTXv8kKtNGZYtgKk3RXSUk36';
/** server/src/store/store.ts's WAL_SIZE_LIMIT_BYTES. */
const WAL_LIMIT = 16 * 1024 * 1024;

interface Pair {
  access_token: string;
  refresh_token: string;
}

async function signIn(url: string): Promise<Pair> {
  const { response } = await passwordGrant(url);
  expect(response.status).toBe(200);
  return (await response.json()) as Pair;
}

async function refresh(url: string, token: string): Promise<Response> {
  return fetch(`${url}/v1/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: token,
      scope: 'general',
      client_id: 'waves.exchange',
    }),
  });
}

/** Runs `gateway ARGS` on the gateway's database: its exit code and output. */
async function gatewayCommand(dataDir: string, ...args: string[]) {
  const env = {
    PATH: process.env.PATH,
    DATA_DIR: dataDir,
    DATABASE_URL: `sqlite:${path.join(dataDir, 'gateway.db')}`,
    LOG_LEVEL: 'error',
  };
  return run(process.execPath, [CLI, ...args], { env }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

describe('backup and restore of the embedded database', () => {
  const gateways: RunningGateway[] = [];
  const folders: string[] = [];
  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.stop()));
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });

  it('backs up under write load, refuses to restore an open database, restores a stopped one; the earlier sign-in still refreshes', async () => {
    // A data folder of the test's own: the gateway keeps it when it stops.
    const dataDir = mkdtempSync(path.join(tmpdir(), 'gateway-backup-'));
    folders.push(dataDir);
    const first = await startGateway({}, { dataDir });
    gateways.push(first);
    // Kept: a sign-in made before the backup, refreshed only after the restore.
    const kept = await signIn(first.url);
    // The write load: a chain of refreshes, each a write, for as long as the backup runs.
    let current = (await signIn(first.url)).refresh_token;
    let writing = true;
    let refreshes = 0;
    let refusal = '';
    const load = (async () => {
      while (writing) {
        const response = await refresh(first.url, current);
        if (response.status !== 200) {
          refusal = `${response.status} ${await response.text()}`;
          return;
        }
        current = ((await response.json()) as Pair).refresh_token;
        refreshes++;
      }
    })();
    while (refreshes < 20 && !refusal) await new Promise((r) => setTimeout(r, 10));
    const target = path.join(dataDir, 'backup.db');
    const before = refreshes;
    const backup = await gatewayCommand(dataDir, 'backup', target);
    const during = refreshes - before;
    writing = false;
    await load;
    expect(refusal).toBe('');
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stdout).toMatch(/^backup written to .*backup\.db \(.* MiB, migration 0\d{3}_\w+, in [\d.]+ s\)/);
    expect(during, 'refreshes written while the backup ran').toBeGreaterThan(0);
    // A second backup to the same file is refused: a backup never overwrites.
    const again = await gatewayCommand(dataDir, 'backup', target);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/exists: a backup never overwrites a file/);

    // A restore while the server has the database open changes nothing.
    const refused = await gatewayCommand(dataDir, 'restore', target);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toMatch(/gateway\.db is open \(a serving instance, an import or another command\)/);
    const stillServing = await refresh(first.url, current);
    expect(stillServing.status).toBe(200);

    gateways.pop();
    expect(await first.stop()).toBe(0);
    // Refreshes made after the backup are lost by the restore; the sign-in made before it is not.
    const restored = await gatewayCommand(dataDir, 'restore', target);
    expect(restored.code, restored.stderr).toBe(0);
    const integrity = await gatewayCommand(dataDir, 'status', '--json');
    expect(integrity.code, integrity.stderr).toBe(0);

    const second = await startGateway({}, { dataDir });
    gateways.push(second);
    const response = await refresh(second.url, kept.refresh_token);
    expect(response.status, await response.clone().text()).toBe(200);
    const pair = (await response.json()) as Pair;
    const page = await fetch(`${second.url}/v1/movements?limit=1`, {
      headers: { authorization: `Bearer ${pair.access_token}` },
    });
    expect(page.status).toBe(200);
  }, 90_000); // two gateways, a write load, a backup and a restore: over 30 s on a busy 2-core machine

  it('cuts the write-ahead log back while serving, after an import made it grow past its limit', async () => {
    const gateway = await startGateway();
    gateways.push(gateway);
    const wal = path.join(gateway.dataDir, 'gateway.db-wal');
    // One import of 15,000 movements in one batch: its transaction alone grows the log to about twice the limit
    // (31 MiB; 40,000 made it 80 MiB and took 2.4 s of a quiet machine, over 30 s of the test on a busy one).
    const now = new Date().toISOString();
    const lines = Array.from({ length: 15_000 }, (_, i) =>
      JSON.stringify({
        id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        account: DEMO_ADDRESS,
        direction: 'deposit',
        status: 'confirmed',
        source_platform_id: 'BTC',
        destination_platform_id: 'WAVES',
        currency_id: 'BTC',
        amount: '0.5',
        fee: '0.00001',
        created_at: now,
        updated_at: now,
        recipient_address: DEMO_ADDRESS,
        transactions: [{ transaction_id: `t${i}`.padEnd(40, 'x'), platform_id: 'BTC' }],
      }),
    );
    const file = path.join(gateway.dataDir, 'many.ndjson');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const imported = await gatewayCommand(gateway.dataDir, 'movements', 'import', file, '--batch-size', '100000');
    expect(imported.code, imported.stderr).toBe(0);
    const grown = existsSync(wal) ? statSync(wal).size : 0;
    expect(grown, 'the import grew the log past the limit').toBeGreaterThan(WAL_LIMIT);
    // The server's next writes begin the log anew once a checkpoint emptied it, and cut the file back.
    let pair = await signIn(gateway.url);
    for (let i = 0; i < 5 && statSync(wal).size > WAL_LIMIT; i++) {
      const response = await refresh(gateway.url, pair.refresh_token);
      expect(response.status).toBe(200);
      pair = (await response.json()) as Pair;
    }
    expect(statSync(wal).size).toBeLessThanOrEqual(WAL_LIMIT);
  });
});
