#!/usr/bin/env node
/**
 * The floor of a password grant: a bare Fastify route doing only what every grant must do, the way the
 * gateway does it, and nothing else (the token scenario's baseline beside the crypto ceiling, as the driver
 * alone is the imports' floor). It parses the form, checks the ledger signature (the server's own
 * `verifyLedgerSignature`, its key conversion cached), makes a refresh token (a chain key and 32 random bytes) and
 * their SHA-256, writes the sign-in with its refresh token durably (the gateway's one insert, on SQLite in WAL
 * mode, `synchronous = NORMAL`; on PostgreSQL prepared, in a schema of its own), signs an access token (node:crypto Ed25519 over the compact JWS the
 * gateway signs) and answers the token pair as JSON with `Cache-Control: no-store`. No validation beyond
 * parsing, no client id or expiry checks, no sign-out check, no rate limit, hooks, request ids, security
 * headers or metrics.
 *
 *   node bench/lib/bare-grant.mjs PORT CHAIN_ID sqlite:FILE|postgres://…
 */
import { generateKeyPairSync, randomBytes, randomUUID, sign } from 'node:crypto';
import { verifyLedgerSignature } from '@gateway/server';
import bs58 from 'bs58';
import { parse } from 'fast-querystring';
import Fastify from 'fastify';
// The gateway's own SQL of a sign-in with its first refresh token (one row), and its hash of the token.
import { hashSecret } from '../../server/dist/domain/refresh-token.js';
import { storedClaims } from '../../server/dist/domain/token-settings.js';
import { POSTGRES_SIGN_IN, SQLITE_SIGN_IN } from '../../server/dist/store/token.js';

const [port, chainId, databaseUrl] = process.argv.slice(2);
const PREFIX = Uint8Array.of(255, 255, 255, 1);
const { privateKey } = generateKeyPairSync('ed25519');
const b64 = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');
const header = b64({ alg: 'EdDSA', typ: 'JWT', kid: 'k1' });
const iso = (seconds) => new Date(seconds * 1000).toISOString();

const TABLES = [
  'create table if not exists token_families (id text primary key, account text not null, revoked_at text, created_at text not null, claims text, chain_hash text, token_hash text, token_expires_at text, spent_recently text, expires_at text, generation integer)',
  'create table if not exists refresh_tokens (token_hash text primary key, family_id text not null references token_families (id), claims text not null, expires_at text not null, used_at text, created_at text not null)',
  'create index if not exists refresh_tokens_by_family on refresh_tokens (family_id)',
  'create table if not exists account_sign_outs (account text primary key, signed_out_through text not null)',
];

/** `write(familyId, account, now, expiry, tokenHash, claims, tokenExpiry)`: the sign-in and its token. */
async function openWrite() {
  if (databaseUrl.startsWith('sqlite:')) {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(databaseUrl.slice('sqlite:'.length));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    for (const sql of TABLES) db.exec(sql);
    const signIn = db.prepare(SQLITE_SIGN_IN).pluck();
    return async (id, account, now, expiry, hash, claims, tokenExpiry, chainHash) =>
      signIn.all(id, account, now, claims, chainHash, hash, tokenExpiry, tokenExpiry, account, expiry);
  }
  const { default: pg } = await import('pg');
  const setup = new pg.Client({ connectionString: databaseUrl });
  await setup.connect();
  await setup.query('create schema if not exists bare_grant');
  for (const sql of TABLES) await setup.query(`set search_path = bare_grant; ${sql}`);
  await setup.end();
  // The gateway's pool: 10 connections by default (DATABASE_POOL_SIZE).
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10, options: '-c search_path=bare_grant' });
  return (id, account, now, expiry, hash, claims, tokenExpiry, chainHash) =>
    pool.query({
      name: 'sign-in',
      text: POSTGRES_SIGN_IN,
      values: [id, account, now, claims, chainHash, hash, tokenExpiry, tokenExpiry, expiry],
    });
}

const write = await openWrite();
const app = Fastify({ logger: false });
app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) =>
  done(null, parse(body)),
);
app.post('/v1/oauth2/token', async (request, reply) => {
  const { username, password, client_id: clientId } = request.body;
  const [expiryText, signature] = password.split(':');
  const text = new TextEncoder().encode(`${chainId}:${clientId}:${expiryText}`);
  const message = new Uint8Array(PREFIX.length + text.length);
  message.set(PREFIX);
  message.set(text, PREFIX.length);
  if (!verifyLedgerSignature(bs58.decode(username), message, bs58.decode(signature))) {
    return reply.code(400).send({ errors: [{ code: 10001, message: 'invalid password' }] });
  }
  const now = Math.floor(Date.now() / 1000);
  const expiry = Number(expiryText);
  const claims = { a: username, nb: chainId, user_name: username, pk: username, cid: clientId, lt: expiry - now };
  const family = randomUUID();
  const chainKey = randomBytes(16).toString('base64url');
  const secret = randomBytes(32).toString('base64url');
  const refreshToken = `rf_${family}.0.${chainKey}.${secret}`;
  await write(
    family,
    username,
    iso(now),
    iso(expiry),
    hashSecret(secret),
    storedClaims(claims),
    iso(now + 30 * 86_400),
    hashSecret(chainKey),
  );
  const input = `${header}.${b64({ ...claims, scope: ['general'], sub: username, sid: family, iat: now, exp: expiry, jti: randomUUID() })}`;
  reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
  return {
    access_token: `${input}.${sign(null, Buffer.from(input), privateKey).toString('base64url')}`,
    token_type: 'bearer',
    expires_in: expiry,
    refresh_token: refreshToken,
  };
});
await app.listen({ port: Number(port), host: '127.0.0.1' });
for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => app.close().then(() => process.exit(0)));
