/**
 * A bounded load run over loopback: many accounts sign in, refresh, ask for deposit and withdrawal
 * addresses and page through lists at once, while an import writes movements. Zero 5xx, zero duplicate or
 * changed addresses, zero lost movements. LOAD_SECONDS sets the length (CI: short; `npm run prove`: 60+).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { addressOfPublicKey, passwordFor, signerFromSeed } from '@gateway/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { percentile, recordFigures } from '../src/figures.js';
import { type RunningGateway, startGateway } from '../src/gateway.js';

const SECONDS = Number(process.env.LOAD_SECONDS ?? 8);
const ACCOUNTS = 24;
const SEED = 'load test seed phrase for the exchange gateway, not for real funds';
const CLI = fileURLToPath(new URL('../../server/dist/cli.js', import.meta.url));
const DESTINATION = '0x3f2b1c25A5f23b193560B97988ee98cBDb480730';

describe(`mixed load for ${SECONDS} s`, () => {
  let gateway: RunningGateway;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'gateway-load-'));
    gateway = await startGateway();
  }, 60_000);
  afterAll(async () => {
    await gateway?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'holds: no 5xx, no changed or shared address, nothing lost',
    async () => {
      const signers = Array.from({ length: ACCOUNTS }, (_, i) => signerFromSeed(SEED, { nonce: i }));
      const owner = addressOfPublicKey(signers[0]?.publicKey ?? '', 'W');
      // The feed imported during the run: movements of the first account.
      const feed = Array.from({ length: 20_000 }, (_, i) =>
        JSON.stringify({
          id: `load-${i}`,
          account: owner,
          direction: i % 2 ? 'deposit' : 'withdrawal',
          status: 'confirmed',
          source_platform_id: 'ETH',
          destination_platform_id: 'WAVES',
          currency_id: 'USDT',
          amount: '10.5',
          fee: '0.5',
          created_at: new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString(),
          updated_at: new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString(),
          recipient_address: owner,
          transactions: [],
        }),
      );
      const feedFile = path.join(dir, 'movements.ndjson');
      writeFileSync(feedFile, `${feed.join('\n')}\n`);

      const latencies: number[] = [];
      const statuses = new Map<number, number>();
      const depositAddress = new Map<number, Set<string>>();
      const proxyAddress = new Map<number, Set<string>>();
      const deadline = Date.now() + SECONDS * 1000;
      const call = async (url: string, init?: RequestInit) => {
        const started = performance.now();
        const response = await fetch(`${gateway.url}${url}`, { ...init, signal: AbortSignal.timeout(10_000) });
        const body = (await response.json()) as Record<string, unknown>;
        latencies.push(performance.now() - started);
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        return { status: response.status, body };
      };
      const signIn = async (i: number) => {
        const signer = signers[i];
        if (!signer) throw new Error('no signer');
        const password = await passwordFor(signer, 'W', 'waves.exchange', Math.floor(Date.now() / 1000) + 600);
        const { body } = await call('/v1/oauth2/token', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'password',
            scope: 'general',
            username: signer.publicKey,
            password,
            client_id: 'waves.exchange',
          }),
        });
        return body as { access_token: string; refresh_token: string };
      };
      const user = async (i: number) => {
        let tokens = await signIn(i);
        for (let round = 0; Date.now() < deadline; round++) {
          const auth = { headers: { authorization: `Bearer ${tokens.access_token}` } };
          const deposit = await call('/v1/deposit/addresses/USDT/ETH', auth);
          const proxy = await call(`/v1/withdraw/addresses/USDT/${DESTINATION}/ETH`, auth);
          if (deposit.status === 200) {
            const set = depositAddress.get(i) ?? new Set();
            set.add((deposit.body.deposit_addresses as string[])[0] ?? '');
            depositAddress.set(i, set);
          }
          if (proxy.status === 200) {
            const set = proxyAddress.get(i) ?? new Set();
            set.add((proxy.body.proxy_addresses as string[])[0] ?? '');
            proxyAddress.set(i, set);
          }
          await call('/v1/movements?limit=100', auth);
          await call('/v1/deposit/currencies');
          await call('/v1/addresses/3P9KR33QyXwfTXv8kKtNGZYtgKk3RXSUk36/trades/WAVES/USDT?limit=200');
          if (round % 3 === 2) {
            const refreshed = await call('/v1/oauth2/token', {
              method: 'POST',
              headers: { 'content-type': 'application/x-www-form-urlencoded' },
              body: new URLSearchParams({
                grant_type: 'refresh_token',
                scope: 'general',
                client_id: 'waves.exchange',
                refresh_token: tokens.refresh_token,
              }),
            });
            if (refreshed.status === 200) tokens = refreshed.body as typeof tokens;
          }
          if (round % 5 === 4) tokens = await signIn(i);
        }
      };
      const importer = new Promise<number | null>((resolve) => {
        const child = spawn(process.execPath, [CLI, 'movements', 'import', feedFile, '--batch-size', '500'], {
          env: {
            ...process.env,
            DATABASE_URL: `sqlite:${path.join(gateway.dataDir, 'gateway.db')}`,
            DATA_DIR: gateway.dataDir,
            LOG_LEVEL: 'error',
          },
          stdio: 'ignore',
        });
        child.once('exit', resolve);
      });
      await Promise.all([
        ...Array.from({ length: ACCOUNTS }, (_, i) => user(i)),
        importer.then((code) => expect(code).toBe(0)),
      ]);

      // Nothing lost: every imported movement can be paged through.
      const tokens = await signIn(0);
      let seen = 0;
      let after: string | null = null;
      do {
        const page = await call(`/v1/movements?limit=100${after ? `&after=${after}` : ''}`, {
          headers: { authorization: `Bearer ${tokens.access_token}` },
        });
        seen += (page.body.items as unknown[]).length;
        after = (page.body.page_info as { last_cursor: string | null }).last_cursor;
      } while (after);

      const serverErrors = [...statuses].filter(([s]) => s >= 500).reduce((n, [, c]) => n + c, 0);
      const deposits = [...depositAddress.values()];
      const proxies = [...proxyAddress.values()];
      const figures = {
        seconds: SECONDS,
        accounts: ACCOUNTS,
        requests: latencies.length,
        requestsPerSecond: Math.round(latencies.length / SECONDS),
        statuses: Object.fromEntries(statuses),
        serverErrors,
        p50Ms: Math.round(percentile(latencies, 50) * 10) / 10,
        p95Ms: Math.round(percentile(latencies, 95) * 10) / 10,
        p99Ms: Math.round(percentile(latencies, 99) * 10) / 10,
        addressesChanged: deposits.filter((s) => s.size !== 1).length + proxies.filter((s) => s.size !== 1).length,
        addressesShared:
          ACCOUNTS -
          new Set(deposits.map((s) => [...s][0])).size +
          (ACCOUNTS - new Set(proxies.map((s) => [...s][0])).size),
        movementsImported: feed.length,
        movementsLost: feed.length - seen,
      };
      console.table(figures);
      recordFigures('load', figures);
      expect(serverErrors).toBe(0);
      expect(deposits).toHaveLength(ACCOUNTS);
      expect(figures.addressesChanged).toBe(0);
      expect(figures.addressesShared).toBe(0);
      expect(figures.movementsLost).toBe(0);
    },
    (SECONDS + 120) * 1000,
  );
});
