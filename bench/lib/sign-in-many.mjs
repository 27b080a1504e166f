#!/usr/bin/env node
/**
 * Signs in many accounts of one seed (`signerFromSeed(seed, { nonce: i })`, i = 0..N-1) with the password
 * grant and writes their access tokens and ledger addresses (the token's `a` claim) to OUT as JSON. The
 * passwords are made in worker threads (about 4 ms each), the grants sent 64 at a time.
 *
 *   node bench/lib/sign-in-many.mjs BASE_URL N SEED OUT [CHAIN_ID] [CLIENT_ID]
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { passwordFor, signerFromSeed } from '@gateway/client';

if (!isMainThread) {
  const { seed, from, to, chainId, clientId, expiry } = workerData;
  const out = [];
  for (let i = from; i < to; i++) {
    const signer = signerFromSeed(seed, { nonce: i });
    out.push({ nonce: i, username: signer.publicKey, password: await passwordFor(signer, chainId, clientId, expiry) });
  }
  parentPort.postMessage(out);
} else {
  const [baseUrl, n, seed, outFile, chainId = 'W', clientId = 'waves.exchange'] = process.argv.slice(2);
  const count = Number(n);
  const started = performance.now();
  const expiry = Math.floor(Date.now() / 1000) + 86_400;
  const threads = Math.max(1, Math.min(os.availableParallelism?.() ?? os.cpus().length, 4));
  const per = Math.ceil(count / threads);
  const parts = await Promise.all(
    Array.from(
      { length: threads },
      (_, t) =>
        new Promise((resolve, reject) => {
          const worker = new Worker(new URL(import.meta.url), {
            workerData: { seed, from: t * per, to: Math.min(count, (t + 1) * per), chainId, clientId, expiry },
          });
          worker.once('message', resolve);
          worker.once('error', reject);
        }),
    ),
  );
  const grants = parts.flat();
  const passwordsSeconds = (performance.now() - started) / 1000;
  const accounts = new Array(grants.length);
  let next = 0;
  const worker = async () => {
    while (next < grants.length) {
      const i = next++;
      const g = grants[i];
      const body = new URLSearchParams({
        grant_type: 'password',
        scope: 'general',
        client_id: clientId,
        username: g.username,
        password: g.password,
      });
      const response = await fetch(`${baseUrl}/v1/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
      });
      const json = await response.json();
      if (response.status !== 200) throw new Error(`sign-in ${g.nonce}: ${response.status} ${JSON.stringify(json)}`);
      const claims = JSON.parse(Buffer.from(json.access_token.split('.')[1], 'base64url').toString());
      accounts[i] = { nonce: g.nonce, address: claims.a, token: json.access_token };
    }
  };
  await Promise.all(Array.from({ length: 64 }, worker));
  writeFileSync(outFile, JSON.stringify(accounts));
  process.stdout.write(
    `${JSON.stringify({ accounts: accounts.length, passwordsSeconds, seconds: (performance.now() - started) / 1000 })}\n`,
  );
}
