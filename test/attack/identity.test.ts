/**
 * Attacks on identity, against the real server over HTTP: forged and malleable ledger signatures, aliased
 * keys, signatures for another message, chain or client, expiries out of range, replays, forged, tampered
 * and expired access tokens, refresh-token reuse, reading another account's movement, and brute force on
 * the token endpoint. Each attack counts its tries and how many were accepted (must be 0) and checks the
 * refusal is the documented one (status and catalogue code); the table is printed at the end.
 *
 *   cd test && npx vitest run identity
 */
import { createHmac, createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type LedgerSigner, passwordFor, signerFromSeed } from '@gateway/client';
import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToNumberLE, numberToBytesLE } from '@noble/curves/utils.js';
import bs58 from 'bs58';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordFigures } from '../src/figures.js';
import { type RunningGateway, startGateway } from '../src/gateway.js';
import { errorCodeProblems } from '../src/spec.js';
import {
  CHAIN_ID,
  CLIENT_ID,
  DEMO_ADDRESS,
  DEMO_SEED,
  nowSeconds,
  passwordGrant,
  signIn,
  type TokenPair,
} from './support/session.js';

const Point = ed25519.Point;
const L = Point.Fn.ORDER;
const P = Point.Fp.ORDER;
const PREFIX = Uint8Array.of(255, 255, 255, 1);
const OTHER_ACCOUNT = '3PQ4nHEVPtvd4TDP77H7BSdDddyxLs9gQ67';
const MAX_LIFETIME = 604_800;
const SKEW = 300;

/** Montgomery u of the points of order 1, 2, 4 and 8: keys for which (R = r·B, S = r) verifies without a key. */
const SMALL_ORDER_U = [
  0n,
  1n,
  P - 1n,
  325606250916557431795983626356110631294008115727848805560023387167927233504n,
  39382357235489614581723060781553021112529911719440698176882885853963445705823n,
];

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: unknown;
}

interface Expected {
  status: number;
  codes: readonly number[];
}

interface Row {
  attack: string;
  tries: number;
  accepted: number;
  /** Refusals with another status or code than the expected ones. */
  unexpected: number;
  expected: string;
  seen: string;
  note: string;
}

const rows = new Map<string, Row & { seenSet: Map<string, number> }>();

const codesOf = (body: unknown): number[] =>
  ((body as { errors?: { code?: unknown }[] } | null)?.errors ?? []).map((e) => Number(e.code));

/** Counts one try of an attack: accepted when 2xx; unexpected when refused otherwise than documented. */
function record(attack: string, expected: Expected, answer: Answer): void {
  const row = rows.get(attack) ?? {
    attack,
    tries: 0,
    accepted: 0,
    unexpected: 0,
    expected: `${expected.status}/${expected.codes.join('|')}`,
    seen: '',
    note: '',
    seenSet: new Map<string, number>(),
  };
  row.tries++;
  const codes = codesOf(answer.body);
  const key = `${answer.status}/${codes.join('+') || '-'}`;
  row.seenSet.set(key, (row.seenSet.get(key) ?? 0) + 1);
  row.seen = [...row.seenSet].map(([k, n]) => `${k}×${n}`).join(' ');
  if (answer.status >= 200 && answer.status < 300) row.accepted++;
  else if (
    answer.status !== expected.status ||
    codes.length === 0 ||
    !codes.every((c) => expected.codes.includes(c)) ||
    errorCodeProblems(answer.status, answer.body).length > 0
  ) {
    row.unexpected++;
  }
  rows.set(attack, row);
}

function note(attack: string, text: string): void {
  const row = rows.get(attack);
  if (row) row.note = text;
}

function expectRefused(attack: string, minTries = 1): void {
  const row = rows.get(attack);
  expect(row, `${attack}: no try recorded`).toBeDefined();
  expect(row?.tries ?? 0, `${attack}: tries`).toBeGreaterThanOrEqual(minTries);
  expect(row?.accepted, `${attack}: accepted (seen ${row?.seen})`).toBe(0);
  expect(row?.unexpected, `${attack}: refused otherwise than ${row?.expected} (seen ${row?.seen})`).toBe(0);
}

async function toAnswer(response: Response): Promise<Answer> {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: response.status, headers: response.headers, text, body };
}

let gateway: RunningGateway;
const signer = signerFromSeed(DEMO_SEED);
const attacker = signerFromSeed('attack account seed, not the demo one: it owns no movement at all');

async function token(url: string, fields: Record<string, string>): Promise<Answer> {
  const response = await fetch(`${url}/v1/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(fields),
    signal: AbortSignal.timeout(5000),
  });
  return toAnswer(response);
}

async function bearer(pathname: string, accessToken: string): Promise<Answer> {
  const response = await fetch(`${gateway.url}${pathname}`, {
    headers: { accept: 'application/json', authorization: `Bearer ${accessToken}` },
    signal: AbortSignal.timeout(5000),
  });
  return toAnswer(response);
}

const grantFields = (username: string, password: string, clientId = CLIENT_ID) => ({
  grant_type: 'password',
  scope: 'general',
  username,
  password,
  client_id: clientId,
});

const message = (expiry: number, chainId = CHAIN_ID, clientId = CLIENT_ID) =>
  new Uint8Array([...PREFIX, ...new TextEncoder().encode(`${chainId}:${clientId}:${expiry}`)]);

/** (R = r·B, S = r): verifies under a small-order key whenever k·A is the identity, with no private key. */
function forgedSignature(signBit: boolean): Uint8Array {
  const r = bytesToNumberLE(randomBytes(32)) % L;
  const signature = new Uint8Array(64);
  signature.set(Point.BASE.multiply(r === 0n ? 1n : r).toBytes());
  signature.set(numberToBytesLE(r === 0n ? 1n : r, 32), 32);
  if (signBit) signature[63] = (signature[63] ?? 0) | 0x80;
  return signature;
}

/**
 * Whether a permissive Ed25519 verifier (ZIP-215 rules, no small-order or canonical-S checks) accepts the
 * signature under the Edwards form of Montgomery key u, the sign bit taken from the signature as the ledger does.
 */
function verifiesNaively(u: bigint, msg: Uint8Array, signature: Uint8Array): boolean {
  const Fp = Point.Fp;
  if (Fp.add(u, 1n) === 0n) return false; // u = −1 has no Edwards image
  const key = numberToBytesLE(Fp.div(Fp.sub(u, 1n), Fp.add(u, 1n)), 32);
  key[31] = (key[31] ?? 0) | ((signature[63] ?? 0) & 0x80);
  const plain = Uint8Array.from(signature);
  plain[63] = (plain[63] ?? 0) & 0x7f;
  try {
    return ed25519.verify(plain, msg, key, { zip215: true });
  } catch {
    return false;
  }
}

/** A valid ledger signature of the token text, as bytes. */
async function validSignature(expiry: number, who: LedgerSigner = signer): Promise<Uint8Array> {
  const password = await passwordFor(who, CHAIN_ID, CLIENT_ID, expiry);
  return bs58.decode(password.split(':')[1] ?? '');
}

const b64url = (data: string | Uint8Array) => Buffer.from(data).toString('base64url');
const jwtParts = (jwt: string) => {
  const [header = '', payload = '', signature = ''] = jwt.split('.');
  return {
    header: JSON.parse(Buffer.from(header, 'base64url').toString()) as Record<string, unknown>,
    payload: JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>,
    rawHeader: header,
    rawPayload: payload,
    signature,
  };
};

let session: TokenPair;

/**
 * The reuse grace of this suite's server: a spent refresh token presented again within it is taken for another
 * tab of the user's (a new pair of the sign-in); past it, for a theft. Short here, so that replays wait past it.
 */
const GRACE_SECONDS = 1;
/** Past the grace, whatever the second the token was spent in (the server counts whole seconds). */
const pastGrace = () => new Promise((resolve) => setTimeout(resolve, (GRACE_SECONDS + 1) * 1000 + 100));

beforeAll(async () => {
  gateway = await startGateway({ REFRESH_REUSE_GRACE_SECONDS: String(GRACE_SECONDS) });
  session = await signIn(gateway.url, signer, nowSeconds() + 3600);
  const check = await bearer('/v1/movements?limit=1', session.access_token);
  expect(check.status, 'control: the valid token reads movements').toBe(200);
}, 120_000);

afterAll(async () => {
  await gateway?.stop();
  const table = [...rows.values()].map(({ seenSet: _s, ...row }) => row);
  console.table(table);
  const tries = table.reduce((n, r) => n + r.tries, 0);
  const accepted = table.reduce((n, r) => n + r.accepted, 0);
  console.log(`identity attacks: ${table.length} kinds, ${tries} tries, ${accepted} accepted`);
  recordFigures('identity', { attacks: table.length, tried: tries, accepted, table });
});

const TOKEN_REFUSAL = (codes: number[]): Expected => ({ status: 400, codes });
const BEARER_REFUSAL: Expected = { status: 401, codes: [10000] };

describe('password grant: forged, malleable and misdirected signatures are refused', () => {
  it('control: a valid password signature is accepted', async () => {
    const answer = await token(gateway.url, await passwordGrant(signer, nowSeconds() + 600));
    expect(answer.status).toBe(200);
  });

  it('signatures forged for small-order public keys (u = 0, 1, p−1, order 4 and 8), no private key', async () => {
    const attack = 'small-order key, forged R=r·B S=r';
    let realForgeries = 0;
    for (const u of SMALL_ORDER_U) {
      const username = bs58.encode(numberToBytesLE(u, 32));
      if (u === 0n) expect(username).toBe('11111111111111111111111111111111');
      for (let i = 0; i < 8; i++) {
        const expiry = nowSeconds() + 600 + i;
        const signature = forgedSignature(i % 2 === 1);
        if (verifiesNaively(u, message(expiry), signature)) realForgeries++;
        const password = `${expiry}:${bs58.encode(signature)}`;
        record(attack, TOKEN_REFUSAL([11303, 11307]), await token(gateway.url, grantFields(username, password)));
      }
    }
    // Not vacuous: some of these pass a permissive Ed25519 verifier (as the ledger's reference library is).
    note(attack, `${realForgeries} verify under a permissive verifier`);
    expect(realForgeries, 'forgeries a permissive verifier accepts').toBeGreaterThan(0);
    expectRefused(attack, 40);
  });

  it('the same forgeries under non-canonical encodings of small-order keys (u + p)', async () => {
    const attack = 'small-order key as u+p, forged';
    for (const u of [0n, 1n]) {
      const username = bs58.encode(numberToBytesLE(u + P, 32));
      for (let i = 0; i < 6; i++) {
        const password = `${nowSeconds() + 600}:${bs58.encode(forgedSignature(i % 2 === 1))}`;
        record(attack, TOKEN_REFUSAL([11303, 11307]), await token(gateway.url, grantFields(username, password)));
      }
    }
    expectRefused(attack, 12);
  });

  it('malleable signatures: S + k·L for a valid signature, sign bit kept', async () => {
    const attack = 'malleable signature S+k·L';
    for (let i = 0; i < 6; i++) {
      const expiry = nowSeconds() + 600 + i;
      const signature = await validSignature(expiry);
      const signBit = (signature[63] ?? 0) & 0x80;
      const s = bytesToNumberLE(Uint8Array.from(signature.subarray(32), (b, j) => (j === 31 ? b & 0x7f : b)));
      const k = BigInt(1 + (i % 3));
      const malleable = Uint8Array.from(signature);
      malleable.set(numberToBytesLE(s + k * L, 32), 32);
      malleable[63] = (malleable[63] ?? 0) | signBit;
      const password = `${expiry}:${bs58.encode(malleable)}`;
      record(attack, TOKEN_REFUSAL([11307]), await token(gateway.url, grantFields(signer.publicKey, password)));
    }
    expectRefused(attack, 6);
  });

  it('the public key with bit 255 set (another text, hence another address, for the same key)', async () => {
    const attack = 'public key with bit 255 set';
    const aliased = bs58.decode(signer.publicKey);
    aliased[31] = (aliased[31] ?? 0) | 0x80;
    for (let i = 0; i < 4; i++) {
      const expiry = nowSeconds() + 600 + i;
      const password = `${expiry}:${bs58.encode(await validSignature(expiry))}`;
      record(
        attack,
        TOKEN_REFUSAL([11303, 11307]),
        await token(gateway.url, grantFields(bs58.encode(aliased), password)),
      );
    }
    expectRefused(attack, 4);
  });

  it('a signature over the message without the [255,255,255,1] prefix', async () => {
    const attack = 'signature without the message prefix';
    for (let i = 0; i < 4; i++) {
      const expiry = nowSeconds() + 600 + i;
      const signature = await signer.sign(message(expiry).subarray(PREFIX.length));
      const password = `${expiry}:${bs58.encode(signature)}`;
      record(attack, TOKEN_REFUSAL([11307]), await token(gateway.url, grantFields(signer.publicKey, password)));
    }
    expectRefused(attack, 4);
  });

  it("a signature for another chain id ('T')", async () => {
    const attack = "signature for chain 'T'";
    for (let i = 0; i < 4; i++) {
      const password = await passwordFor(signer, 'T', CLIENT_ID, nowSeconds() + 600 + i);
      record(attack, TOKEN_REFUSAL([11307]), await token(gateway.url, grantFields(signer.publicKey, password)));
    }
    expectRefused(attack, 4);
  });

  it('a signature for another client id, sent with ours; and an unknown client id', async () => {
    const attack = 'signature for another client id';
    for (let i = 0; i < 4; i++) {
      const password = await passwordFor(signer, CHAIN_ID, 'wx.network', nowSeconds() + 600 + i);
      record(attack, TOKEN_REFUSAL([11307]), await token(gateway.url, grantFields(signer.publicKey, password)));
      const own = await passwordFor(signer, CHAIN_ID, 'evil.client', nowSeconds() + 600 + i);
      record(
        attack,
        TOKEN_REFUSAL([11307, 11302]),
        await token(gateway.url, grantFields(signer.publicKey, own, 'evil.client')),
      );
    }
    expectRefused(attack, 8);
  });

  it('an expiry in the past', async () => {
    const attack = 'expiry in the past';
    for (const expiry of [nowSeconds() - 1, nowSeconds() - 3600, 1, 1_000_000_000]) {
      const password = await passwordFor(signer, CHAIN_ID, CLIENT_ID, expiry);
      record(attack, TOKEN_REFUSAL([11305]), await token(gateway.url, grantFields(signer.publicKey, password)));
    }
    const zero = `0:${bs58.encode(await signer.sign(message(0)))}`;
    record(attack, TOKEN_REFUSAL([11305]), await token(gateway.url, grantFields(signer.publicKey, zero)));
    expectRefused(attack, 5);
  });

  it('an expiry more than a week (+300 s of skew) ahead', async () => {
    const attack = 'expiry > 1 week + 300 s ahead';
    for (const ahead of [
      MAX_LIFETIME + SKEW + 5,
      MAX_LIFETIME + SKEW + 3600,
      10 * 365 * 86_400,
      99_999_999_999 - nowSeconds(),
    ]) {
      const password = await passwordFor(signer, CHAIN_ID, CLIENT_ID, nowSeconds() + ahead);
      record(attack, TOKEN_REFUSAL([11306]), await token(gateway.url, grantFields(signer.publicKey, password)));
    }
    expectRefused(attack, 4);
    // Control: just inside the window is accepted.
    const inside = await passwordFor(signer, CHAIN_ID, CLIENT_ID, nowSeconds() + MAX_LIFETIME + SKEW - 30);
    expect((await token(gateway.url, grantFields(signer.publicKey, inside))).status).toBe(200);
  });

  it('a refused password replayed several times stays refused, with the same code', async () => {
    const attack = 'replay of a refused password (×5 each)';
    const refused = [
      await passwordFor(signer, 'T', CLIENT_ID, nowSeconds() + 600),
      await passwordFor(signer, CHAIN_ID, CLIENT_ID, nowSeconds() - 10),
      `${nowSeconds() + 600}:${bs58.encode(forgedSignature(false))}`,
    ];
    for (const password of refused) {
      const codes = new Set<string>();
      for (let i = 0; i < 5; i++) {
        const answer = await token(gateway.url, grantFields(signer.publicKey, password));
        codes.add(codesOf(answer.body).join('+'));
        record(attack, TOKEN_REFUSAL([11305, 11307]), answer);
      }
      expect(codes.size, `one code for every replay of ${password.slice(0, 24)}…`).toBe(1);
    }
    expectRefused(attack, 15);
  });

  it('an Ethereum-style zero address with null or garbage signatures', async () => {
    const attack = '0x000…0 username, null/garbage signature';
    const zero = `0x${'0'.repeat(40)}`;
    const expiry = nowSeconds() + 600;
    const signatures = [
      `0x${'00'.repeat(65)}`,
      `0x${'00'.repeat(64)}1b`,
      `0x${'00'.repeat(64)}1c`,
      `0x${'ff'.repeat(65)}`,
      bs58.encode(new Uint8Array(65)),
      `0x${randomBytes(64).toString('hex')}1b`,
    ];
    for (const signature of signatures) {
      record(
        attack,
        TOKEN_REFUSAL([11303, 11304, 11307]),
        await token(gateway.url, grantFields(zero, `${expiry}:${signature}`)),
      );
    }
    expectRefused(attack, 6);
  });
});

describe('access tokens: forged, tampered and expired tokens are refused (401, code 10000)', () => {
  const attempt = async (attack: string, jwt: string) =>
    record(attack, BEARER_REFUSAL, await bearer('/v1/movements?limit=1', jwt));

  it('alg "none" (empty and non-empty signature, any case)', async () => {
    const attack = 'JWT alg none';
    const { payload } = jwtParts(session.access_token);
    for (const alg of ['none', 'None', 'NONE', 'nOnE']) {
      const unsigned = `${b64url(JSON.stringify({ alg, typ: 'JWT' }))}.${b64url(JSON.stringify(payload))}`;
      await attempt(attack, `${unsigned}.`);
      await attempt(attack, `${unsigned}.AAAA`);
      await attempt(attack, unsigned);
    }
    expectRefused(attack, 12);
  });

  it('HS256/384/512 keyed with the server public key (raw, SPKI, PEM, JWK, hex) or other key material', async () => {
    const attack = 'JWT HS* keyed with public/known key material';
    const secrets = JSON.parse(readFileSync(path.join(gateway.dataDir, 'secrets.json'), 'utf8')) as Record<
      string,
      string
    >;
    const publicKey = createPublicKey(createPrivateKey(String(secrets.tokenSigningKey)));
    const spki = publicKey.export({ type: 'spki', format: 'der' });
    const raw = spki.subarray(spki.length - 32);
    const pem = String(publicKey.export({ type: 'spki', format: 'pem' }));
    const jwk = publicKey.export({ format: 'jwk' }) as { x: string };
    const { header, payload } = jwtParts(session.access_token);
    const keys: (string | Uint8Array)[] = [
      raw,
      spki,
      pem,
      pem.trim(),
      jwk.x,
      JSON.stringify(jwk),
      raw.toString('hex'),
      raw.toString('base64'),
      String(header.kid ?? ''),
      bs58.decode(signer.publicKey),
      signer.publicKey,
      String(secrets.cursorSecret ?? ''),
      String(secrets.proxySeed ?? ''),
      String(secrets.tokenSigningKey ?? ''),
      'secret',
      '',
    ];
    for (const alg of ['HS256', 'HS384', 'HS512'] as const) {
      const hash = { HS256: 'sha256', HS384: 'sha384', HS512: 'sha512' }[alg];
      for (const key of keys) {
        const unsigned = `${b64url(JSON.stringify({ ...header, alg }))}.${b64url(JSON.stringify(payload))}`;
        const mac = createHmac(hash, key).update(unsigned).digest();
        await attempt(attack, `${unsigned}.${b64url(mac)}`);
      }
    }
    // The HMAC under the header the server issues (alg EdDSA): a 32-byte "signature".
    const unsigned = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(payload))}`;
    await attempt(attack, `${unsigned}.${b64url(createHmac('sha256', raw).update(unsigned).digest())}`);
    expectRefused(attack, 40);
  });

  it('tampered claims with the original signature (a, sub, exp, nb, cid, user_name)', async () => {
    const attack = 'JWT tampered claims, signature kept';
    const { rawHeader, payload, signature } = jwtParts(session.access_token);
    const changes: Record<string, unknown>[] = [
      { a: OTHER_ACCOUNT },
      { a: OTHER_ACCOUNT, sub: OTHER_ACCOUNT },
      { sub: OTHER_ACCOUNT },
      { exp: Number(payload.exp) + 86_400 * 365 },
      { nb: 'T' },
      { cid: 'wx.network' },
      { user_name: attacker.publicKey, pk: attacker.publicKey },
      { a: [DEMO_ADDRESS, OTHER_ACCOUNT] },
    ];
    for (const change of changes) {
      await attempt(attack, `${rawHeader}.${b64url(JSON.stringify({ ...payload, ...change }))}.${signature}`);
    }
    // Same claims, JSON re-serialised with whitespace: another byte string, the signature no longer covers it.
    await attempt(attack, `${rawHeader}.${b64url(JSON.stringify(payload, null, 1))}.${signature}`);
    expectRefused(attack, 9);
  });

  it('a token signed by another Ed25519 key (same header, kid and claims)', async () => {
    const attack = 'JWT signed by another Ed25519 key';
    const { header, payload } = jwtParts(session.access_token);
    for (let i = 0; i < 4; i++) {
      const { privateKey } = generateKeyPairSync('ed25519');
      const jwt = await new SignJWT({ ...payload, ...(i % 2 ? { a: OTHER_ACCOUNT, sub: OTHER_ACCOUNT } : {}) })
        .setProtectedHeader({ ...header, alg: 'EdDSA' } as { alg: string })
        .sign(privateKey);
      await attempt(attack, jwt);
    }
    expectRefused(attack, 4);
  });

  it('an expired token (signed expiry 2 s ahead, used after 3 s), and its password replayed then', async () => {
    const attack = 'expired access token';
    const replay = 'replay of a valid password after its expiry';
    const expiry = nowSeconds() + 2;
    const fields = grantFields(signer.publicKey, await passwordFor(signer, CHAIN_ID, CLIENT_ID, expiry));
    const issued = await token(gateway.url, fields);
    expect(issued.status, 'control: sign-in with a 2 s expiry').toBe(200);
    const short = issued.body as TokenPair;
    expect((await bearer('/v1/movements?limit=1', short.access_token)).status, 'control: fresh token works').toBe(200);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, (expiry + 1) * 1000 - Date.now()) + 200));
    for (const pathname of ['/v1/movements?limit=1', '/v1/deposit/addresses/USDT/ETH']) {
      record(attack, BEARER_REFUSAL, await bearer(pathname, short.access_token));
    }
    for (let i = 0; i < 3; i++) record(replay, TOKEN_REFUSAL([11305]), await token(gateway.url, fields));
    expectRefused(attack, 2);
    expectRefused(replay, 3);
  }, 15_000);
});

describe('refresh tokens: rotation, reuse detection, family revocation', () => {
  const refresh = (refreshToken: string, clientId = CLIENT_ID) =>
    token(gateway.url, {
      grant_type: 'refresh_token',
      scope: 'general',
      client_id: clientId,
      refresh_token: refreshToken,
    });

  it('a spent refresh token is refused, and its reuse revokes the token it was rotated into', async () => {
    const reuse = 'refresh token reuse (past the grace)';
    const revoked = 'rotated token after reuse (family revoked)';
    const rotations = await Promise.all(
      [0, 1, 2].map(async () => {
        const first = (await signIn(gateway.url, signer)).refresh_token;
        const rotated = await refresh(first);
        expect(rotated.status, 'control: first use rotates').toBe(200);
        return { first, second: (rotated.body as TokenPair).refresh_token };
      }),
    );
    await pastGrace();
    for (const { first, second } of rotations) {
      record(reuse, TOKEN_REFUSAL([11308]), await refresh(first));
      record(revoked, TOKEN_REFUSAL([11308]), await refresh(second));
      record(reuse, TOKEN_REFUSAL([11308]), await refresh(first));
    }
    expectRefused(reuse, 6);
    expectRefused(revoked, 3);
  });

  it('a stolen access token stops working when its sign-in is revoked: by reuse detection or by logout', async () => {
    const stolen = 'access token after reuse revoked its sign-in';
    const loggedOut = 'access token after logout (POST /v1/oauth2/revoke)';
    const victims = await Promise.all(
      [0, 1, 2].map(async () => {
        const victim = await signIn(gateway.url, signer);
        const rotated = await refresh(victim.refresh_token);
        const rotatedAccess = (rotated.body as TokenPair).access_token;
        expect((await bearer('/v1/movements?limit=1', rotatedAccess)).status, 'control: works before').toBe(200);
        return { victim, rotatedAccess };
      }),
    );
    await pastGrace();
    for (const { victim, rotatedAccess } of victims) {
      await refresh(victim.refresh_token); // the replay that reveals the theft
      record(stolen, BEARER_REFUSAL, await bearer('/v1/movements?limit=1', victim.access_token));
      record(stolen, BEARER_REFUSAL, await bearer('/v1/movements?limit=1', rotatedAccess));

      const device = await signIn(gateway.url, signer);
      const logout = await fetch(`${gateway.url}/v1/oauth2/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: device.refresh_token }).toString(),
      });
      expect(logout.status, 'control: the logout is answered').toBe(200);
      record(loggedOut, BEARER_REFUSAL, await bearer('/v1/movements?limit=1', device.access_token));
      record(loggedOut, TOKEN_REFUSAL([11308]), await refresh(device.refresh_token));
    }
    expectRefused(stolen, 6);
    expectRefused(loggedOut, 6);
  });

  it('a spent refresh token replayed within the grace of a signed-out sign-in gets nothing', async () => {
    const attack = 'spent refresh token within the grace, after sign-out';
    for (let i = 0; i < 3; i++) {
      const victim = await signIn(gateway.url, signer);
      const rotated = (await refresh(victim.refresh_token)).body as TokenPair;
      const logout = await fetch(`${gateway.url}/v1/oauth2/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: rotated.refresh_token }).toString(),
      });
      expect(logout.status, 'control: the logout is answered').toBe(200);
      record(attack, TOKEN_REFUSAL([11308]), await refresh(victim.refresh_token));
    }
    expectRefused(attack, 3);
  });

  it('a refresh token presented with another client id, or altered', async () => {
    const attack = 'refresh token: other client id / altered';
    const fresh = (await signIn(gateway.url, signer)).refresh_token;
    record(attack, TOKEN_REFUSAL([11308]), await refresh(fresh, 'wx.network'));
    const other = (await signIn(gateway.url, signer)).refresh_token;
    const last = other.at(-1) === 'A' ? 'B' : 'A';
    record(attack, TOKEN_REFUSAL([11308]), await refresh(`${other.slice(0, -1)}${last}`));
    record(attack, TOKEN_REFUSAL([11308]), await refresh(`rt_${'A'.repeat(43)}`));
    record(attack, TOKEN_REFUSAL([11308, 10201]), await refresh(session.access_token));
    expectRefused(attack, 4);
  });
});

describe("one account cannot read another account's movement", () => {
  it('by id: 404, byte-identical to a missing id, both ways', async () => {
    const attack = "another account's movement by id";
    const demoIds = (
      ((await bearer('/v1/movements?limit=5', session.access_token)).body as { items: { id: string }[] }).items ?? []
    ).map((m) => m.id);
    const otherIds = readFileSync(new URL('../../server/demo/movements.ndjson', import.meta.url), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { id: string; account: string })
      .filter((m) => m.account === OTHER_ACCOUNT)
      .map((m) => m.id);
    expect(demoIds.length).toBeGreaterThan(0);
    expect(otherIds.length).toBeGreaterThan(0);
    const attackerToken = (await signIn(gateway.url, attacker)).access_token;
    const missing = await bearer(`/v1/movements/${crypto.randomUUID()}`, session.access_token);
    expect(missing.status).toBe(404);
    for (const [reader, ids] of [
      [session.access_token, otherIds],
      [attackerToken, demoIds],
    ] as const) {
      const missingForReader = await bearer(`/v1/movements/${crypto.randomUUID()}`, reader);
      for (const id of ids) {
        const answer = await bearer(`/v1/movements/${id}`, reader);
        record(attack, { status: 404, codes: [10404] }, answer);
        expect(answer.text, `body for ${id} is byte-identical to a missing id's`).toBe(missingForReader.text);
        expect(answer.headers.get('content-length')).toBe(missingForReader.headers.get('content-length'));
      }
    }
    note(attack, 'bodies byte-identical to a missing id');
    // Control: the owner reads it.
    expect((await bearer(`/v1/movements/${demoIds[0]}`, session.access_token)).status).toBe(200);
    expectRefused(attack, otherIds.length + demoIds.length);
  });
});

describe('brute force on the token endpoint', () => {
  let limited: RunningGateway;
  beforeAll(async () => {
    limited = await startGateway({ TOKEN_RATE_LIMIT: '20' });
  }, 120_000);
  afterAll(async () => {
    await limited?.stop();
  });

  it('answers 429 with Retry-After and code 11100 after 20 tries a minute, even to a valid password', async () => {
    const attack = 'brute force (limit 20/min): tries 1–20';
    const beyond = 'brute force: tries 21–30 and a valid one';
    for (let i = 0; i < 20; i++) {
      const password = `${nowSeconds() + 600}:${bs58.encode(forgedSignature(false))}`;
      record(attack, TOKEN_REFUSAL([11307]), await token(limited.url, grantFields(signer.publicKey, password)));
    }
    const limitedAnswers: Answer[] = [];
    for (let i = 0; i < 10; i++) {
      const password = `${nowSeconds() + 600}:${bs58.encode(forgedSignature(false))}`;
      limitedAnswers.push(await token(limited.url, grantFields(signer.publicKey, password)));
    }
    limitedAnswers.push(await token(limited.url, await passwordGrant(signer, nowSeconds() + 600)));
    for (const answer of limitedAnswers) {
      record(beyond, { status: 429, codes: [11100] }, answer);
      expect(answer.status).toBe(429);
      expect(Number(answer.headers.get('retry-after')), 'Retry-After in seconds').toBeGreaterThan(0);
      expect(Number(answer.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    }
    note(beyond, `Retry-After: ${limitedAnswers[0]?.headers.get('retry-after')}`);
    expectRefused(attack, 20);
    expectRefused(beyond, 11);
  });
});
