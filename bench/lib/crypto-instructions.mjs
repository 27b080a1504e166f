#!/usr/bin/env node
/**
 * A password grant's cryptography alone, N times in one process, for bench/instructions.mjs (run under
 * callgrind at two values of N: the difference is the cost of one grant's crypto). Each iteration does
 * what a known account's grant does in crypto: the build's `verifyLedgerSignature` of the password (the
 * key's conversion cached after the first) and the Ed25519 signing of an access token of the server's size
 * (node:crypto, as domain/access-token.ts and lib/crypto-rate.mjs).
 *
 *   node bench/lib/crypto-instructions.mjs BUILD_ROOT N GRANT_FORM_BODY
 */
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import bs58 from 'bs58';

const [root, n, form] = process.argv.slice(2);
const { verifyLedgerSignature } = await import(pathToFileURL(path.join(root, 'server/dist/index.js')).href);
const body = new URLSearchParams(form);
const username = body.get('username');
const [expiry, signatureText] = body.get('password').split(':');
const text = new TextEncoder().encode(`W:${body.get('client_id')}:${expiry}`);
const message = new Uint8Array(4 + text.length);
message.set([255, 255, 255, 1]);
message.set(text, 4);
const publicKey = bs58.decode(username);
const signature = bs58.decode(signatureText);
const { privateKey } = generateKeyPairSync('ed25519');
const b64 = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');
const header = b64({ alg: 'EdDSA', typ: 'JWT', kid: 'k1' });
const now = Math.floor(Date.now() / 1000);
let verified = 0;
for (let i = 0; i < Number(n); i++) {
  if (verifyLedgerSignature(publicKey, message, signature)) verified++;
  const claims = {
    a: `3P${'x'.repeat(33)}`,
    nb: 'W',
    user_name: username,
    pk: username,
    cid: 'waves.exchange',
    lt: 604_800,
    scope: ['general'],
    sub: `3P${'x'.repeat(33)}`,
    sid: randomUUID(),
    iat: now,
    exp: now + 604_800,
    jti: randomUUID(),
  };
  sign(null, Buffer.from(`${header}.${b64(claims)}`), privateKey);
}
if (verified !== Number(n)) throw new Error(`${Number(n) - verified} signatures refused`);
