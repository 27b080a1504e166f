#!/usr/bin/env node
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
/**
 * Raw in-process rates of a token grant's cryptography (the baselines of the token and storm scenarios), run
 * pinned to the server's core: the server's own `verifyLedgerSignature` (node:crypto Ed25519 after a cached
 * key conversion) on warm and on cold keys, the signing of an access token (node:crypto Ed25519 over a
 * compact JWS of the size the server signs, as domain/access-token.ts does), and the ledger's reference
 * library `@waves/ts-lib-crypto` (pure JS). A grant verifies one signature and makes one: its crypto ceiling
 * is 1 / (1/verify + 1/sign), computed by the caller.
 *
 *   node bench/lib/crypto-rate.mjs passwords.json SECONDS
 *
 * passwords.json: { chainId, clientId, grants: [{ username, password }] }. Prints one JSON object.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { verifyLedgerSignature } from '@gateway/server';
import bs58 from 'bs58';

const require = createRequire(import.meta.url);
const tsLib = require('@waves/ts-lib-crypto');

const [file, secondsText] = process.argv.slice(2);
const seconds = Number(secondsText);
const { chainId, clientId, grants } = JSON.parse(readFileSync(file, 'utf8'));
const PREFIX = Uint8Array.of(255, 255, 255, 1);

const checks = grants.map(({ username, password }) => {
  const [expiry, signature] = password.split(':');
  const text = new TextEncoder().encode(`${chainId}:${clientId}:${expiry}`);
  const message = new Uint8Array(PREFIX.length + text.length);
  message.set(PREFIX);
  message.set(text, PREFIX.length);
  return {
    username,
    publicKey: bs58.decode(username),
    message,
    signatureText: signature,
    signature: bs58.decode(signature),
  };
});

function timed(fn, minSeconds, minCount = 1) {
  const started = process.hrtime.bigint();
  const deadline = started + BigInt(Math.round(minSeconds * 1e9));
  let count = 0;
  let failures = 0;
  while (count < minCount || process.hrtime.bigint() < deadline) {
    if (!fn(checks[count % checks.length])) failures++;
    count++;
  }
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  return { checks: count, seconds: elapsed, perSecond: count / elapsed, failures };
}

// First pass over distinct keys: each one's Montgomery-to-Edwards conversion and subgroup check (cold).
const server = (c) => verifyLedgerSignature(c.publicKey, c.message, c.signature);
const cold = timed(server, 0, checks.length);
// Then the same signatures again, keys cached: the state of a server after the warm-up (warm).
const warm = timed(server, seconds, checks.length);
// The access token's signature: the server's header and claims for these accounts (domain/access-token.ts).
const { privateKey } = generateKeyPairSync('ed25519');
const b64 = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');
const now = Math.floor(Date.now() / 1000);
const inputs = checks.map((c) =>
  Buffer.from(
    `${b64({ alg: 'EdDSA', typ: 'JWT', kid: 'k1' })}.${b64({ a: `3P${'x'.repeat(33)}`, nb: chainId, user_name: c.username, pk: c.username, cid: clientId, lt: 604_800, scope: ['general'], sub: `3P${'x'.repeat(33)}`, sid: randomUUID(), iat: now, exp: now + 604_800, jti: randomUUID() })}`,
  ),
);
let signed = 0;
const signing = timed(() => sign(null, inputs[signed++ % inputs.length], privateKey).length === 64, seconds, 100);
// The reference library warmed up as well (its JIT and caches), before it is timed.
const referenceCheck = (c) => tsLib.verifySignature(c.username, c.message, c.signatureText);
const referenceWarmUp = timed(referenceCheck, Math.min(1, seconds / 2), 20);
const reference = timed(referenceCheck, seconds, 20);

process.stdout.write(
  `${JSON.stringify({ distinctKeys: new Set(grants.map((g) => g.username)).size, cold, warm, sign: signing, referenceWarmUp, reference })}\n`,
);
