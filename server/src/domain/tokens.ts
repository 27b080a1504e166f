/**
 * Access and refresh tokens. The password grant proves ownership of a ledger key (Curve25519) or of an
 * Ethereum-style account (EIP-712) by a signature over `<chainId>:<client_id>:<expiry>`; the access token is
 * an EdDSA JWT that expires at the signed expiry and is verified without the database; the refresh token
 * is opaque, stored as a hash, rotated on use, and its reuse revokes the family.
 * @see ../../../spec/paths/token.yaml
 */
import { createHash, type KeyObject, randomBytes, randomUUID, sign } from 'node:crypto';
import {
  addressFromEthAddress,
  addressFromPublicKey,
  type ChainId,
  chainIdByte,
  ledgerMessageBytes,
  MAX_LIFETIME_SECONDS,
  PUBLIC_KEY_LENGTH,
  SIGNATURE_LENGTH,
  tokenText,
} from '@gateway/ledger';
import { hexToBytes } from '@noble/curves/utils.js';
import bs58 from 'bs58';
import { errors as joseErrors, jwtVerify } from 'jose';
import { verifyLedgerSignature } from '../crypto/curve25519.js';
import { ETH_SIGNATURE_LENGTH, eip712Digest, parseEthAddress, recoverSigner } from '../crypto/ethereum.js';
import { ApiError } from '../errors.js';
import type { Store } from '../store/store.js';
import {
  findRefreshToken,
  type RefreshTokenRow,
  replaceRefreshToken,
  revokeTokenFamily,
  startTokenFamily,
} from '../store/token.js';

/** The clock skew tolerated on top of the longest lifetime (`MAX_LIFETIME_SECONDS`, one week). */
export const CLOCK_SKEW_SECONDS = 300;
const SCOPE = 'general';
const BASE58 = /^[1-9A-HJ-NP-Za-km-z]+$/;

/** Who a valid access token speaks for. */
export interface Caller {
  /** The ledger address of the account. */
  account: string;
  /** The username the token was issued to: a base58 public key or a `0x` address. */
  username: string;
  clientId: string;
}

export interface TokenPair {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  refresh_token: string;
}

export interface TokenSettings {
  chainId: ChainId;
  clientIds: readonly string[];
  refreshTokenTtl: number;
  signingKey: KeyObject;
  keyId: string;
  /** Keys that verify access tokens, by key id (the current one, and earlier ones during a rotation). */
  verifyingKeys: ReadonlyMap<string, KeyObject>;
  /**
   * Tokens already verified, with their caller and expiry: verification depends only on the token and the
   * keys, so its answer holds until the token expires. Bounded; the oldest entries go first.
   */
  verified?: Map<string, { caller: Caller; exp: number }>;
}

const VERIFIED_CACHE_SIZE = 10_000;

/** The claims a refresh token reissues. */
interface IssuedClaims {
  a: string;
  nb: ChainId;
  user_name: string;
  pk: string;
  cid: string;
  lt: number;
}

function decodeBase58(text: string, length: number): Uint8Array | null {
  if (!BASE58.test(text) || text.length > 100) return null;
  try {
    const bytes = bs58.decode(text);
    return bytes.length === length ? bytes : null;
  } catch {
    return null;
  }
}

type Account =
  | { kind: 'ledger'; publicKey: Uint8Array; address: string }
  | { kind: 'ethereum'; ethAddress: Uint8Array; address: string };

function accountOf(username: string, chainId: ChainId): Account {
  if (username.startsWith('0x')) {
    const ethAddress = parseEthAddress(username);
    if (ethAddress) return { kind: 'ethereum', ethAddress, address: addressFromEthAddress(ethAddress, chainId) };
  } else {
    const publicKey = decodeBase58(username, PUBLIC_KEY_LENGTH);
    if (publicKey) return { kind: 'ledger', publicKey, address: addressFromPublicKey(publicKey, chainId) };
  }
  throw new ApiError('invalid_username');
}

function signatureOf(text: string, account: Account): Uint8Array {
  if (account.kind === 'ledger') {
    const signature = decodeBase58(text, SIGNATURE_LENGTH);
    if (signature) return signature;
  } else if (/^0x[0-9a-fA-F]{130}$/.test(text)) {
    return hexToBytes(text.slice(2));
  } else {
    const signature = decodeBase58(text, ETH_SIGNATURE_LENGTH);
    if (signature) return signature;
  }
  throw new ApiError('invalid_password_format');
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

export interface PasswordGrant {
  scope: string;
  clientId: string;
  username: string;
  password: string;
}

/**
 * Checks a password grant rule by rule, in the order of the catalogue, and returns the account it proves.
 * The signed message is built from the exact expiry text that arrived.
 */
export function verifyPasswordGrant(grant: PasswordGrant, settings: TokenSettings, nowSeconds: number) {
  if (grant.scope !== SCOPE) throw new ApiError('invalid_scope');
  if (!settings.clientIds.includes(grant.clientId)) throw new ApiError('invalid_client');
  const account = accountOf(grant.username, settings.chainId);
  const match = /^(\d{1,12}):([^:]+)$/.exec(grant.password);
  if (!match) throw new ApiError('invalid_password_format');
  const [, expiryText = '', signatureText = ''] = match;
  const signature = signatureOf(signatureText, account);
  const expiry = Number(expiryText);
  if (expiry <= nowSeconds) throw new ApiError('expiry_passed');
  if (expiry > nowSeconds + MAX_LIFETIME_SECONDS + CLOCK_SKEW_SECONDS) throw new ApiError('expiry_too_far');
  const text = tokenText(settings.chainId, grant.clientId, expiryText);
  const valid =
    account.kind === 'ledger'
      ? verifyLedgerSignature(account.publicKey, ledgerMessageBytes(text), signature)
      : (() => {
          const signer = recoverSigner(eip712Digest(text, chainIdByte(settings.chainId)), signature);
          return signer !== null && sameBytes(signer, account.ethAddress);
        })();
  if (!valid) throw new ApiError('invalid_signature');
  return { address: account.address, expiry };
}

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

/**
 * The access token: a compact JWS (RFC 7515) of the claims, signed EdDSA (Ed25519) with node:crypto. The
 * same bytes jose's SignJWT makes, without its detour through WebCrypto (an asynchronous job per token,
 * costing more than the signature itself); tokens are verified with jose (`verifyAccessToken`).
 */
function signAccessToken(claims: IssuedClaims, expiry: number, settings: TokenSettings, now: number): string {
  const header = { alg: 'EdDSA', typ: 'JWT', kid: settings.keyId };
  const payload = { ...claims, scope: [SCOPE], sub: claims.a, iat: now, exp: expiry, jti: randomUUID() };
  const input = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(payload))}`;
  return `${input}.${sign(null, Buffer.from(input), settings.signingKey).toString('base64url')}`;
}

const base64url = (text: string) => Buffer.from(text).toString('base64url');

/** A new refresh token of the family: the row to store (its hash, with the claims it reissues) and the token. */
function newRefreshToken(
  settings: TokenSettings,
  claims: IssuedClaims,
  familyId: string,
  now: number,
): { token: string; row: RefreshTokenRow } {
  const token = `rt_${randomBytes(32).toString('base64url')}`;
  return {
    token,
    row: {
      tokenHash: hashToken(token),
      familyId,
      claims: JSON.stringify(claims),
      expiresAt: iso(now + settings.refreshTokenTtl),
      now: iso(now),
    },
  };
}

function pairOf(
  settings: TokenSettings,
  claims: IssuedClaims,
  refreshToken: string,
  expiry: number,
  now: number,
): TokenPair {
  return {
    access_token: signAccessToken(claims, expiry, settings, now),
    token_type: 'bearer',
    expires_in: expiry,
    refresh_token: refreshToken,
  };
}

/** The password grant: verify, then issue an access token expiring at the signed expiry and a refresh token. */
export async function issueForPassword(
  store: Store,
  settings: TokenSettings,
  grant: PasswordGrant,
  now: number,
): Promise<TokenPair> {
  const { address, expiry } = verifyPasswordGrant(grant, settings, now);
  const claims: IssuedClaims = {
    a: address,
    nb: settings.chainId,
    user_name: grant.username,
    pk: grant.username,
    cid: grant.clientId,
    lt: expiry - now,
  };
  // The family and its first refresh token are written together or not at all.
  const refresh = newRefreshToken(settings, claims, randomUUID(), now);
  await startTokenFamily(store, address, refresh.row);
  return pairOf(settings, claims, refresh.token, expiry, now);
}

/**
 * The refresh_token grant: spend the token once and issue a new pair with the same lifetime, from now.
 * Presenting a spent token again, concurrently or later, revokes its whole family (OAuth 2.0 Security BCP),
 * including the pair the winner was just given. A token presented with another client id is refused and
 * left as it was: only its own client can spend it.
 */
export async function issueForRefreshToken(
  store: Store,
  settings: TokenSettings,
  grant: { scope: string; clientId: string; refreshToken: string },
  now: number,
): Promise<TokenPair> {
  if (grant.scope !== SCOPE) throw new ApiError('invalid_scope');
  if (!settings.clientIds.includes(grant.clientId)) throw new ApiError('invalid_client');
  if (!/^rt_[A-Za-z0-9_-]{43}$/.test(grant.refreshToken)) throw new ApiError('invalid_refresh_token');
  const tokenHash = hashToken(grant.refreshToken);
  const stored = await findRefreshToken(store.db, tokenHash);
  if (!stored || stored.familyRevokedAt !== null) throw new ApiError('invalid_refresh_token');
  if (stored.usedAt === null) {
    const claims = JSON.parse(stored.claims) as IssuedClaims;
    if (claims.cid !== grant.clientId || stored.expiresAt <= iso(now)) throw new ApiError('invalid_refresh_token');
    const refresh = newRefreshToken(settings, claims, stored.familyId, now);
    if (await replaceRefreshToken(store, tokenHash, refresh.row)) {
      return pairOf(settings, claims, refresh.token, now + claims.lt, now);
    }
  }
  // Spent already (now, by a concurrent request, or before): a reuse.
  await revokeTokenFamily(store.db, stored.familyId, iso(now));
  throw new ApiError('invalid_refresh_token');
}

const unauthorized = () => new ApiError('invalid_access_token');

/** The caller of a `Bearer` access token; any failure is the same 401 (code 10000). */
export async function verifyAccessToken(
  authorization: string | undefined,
  settings: TokenSettings,
  now: number,
): Promise<Caller> {
  const match = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/i.exec(authorization ?? '');
  if (!match?.[1] || match[1].length > 4096) throw unauthorized();
  const known = settings.verified?.get(match[1]);
  if (known) {
    if (known.exp > now) return known.caller;
    settings.verified?.delete(match[1]);
    throw unauthorized();
  }
  try {
    const keyFor = (header: { kid?: string }) => {
      const key = header.kid === undefined ? undefined : settings.verifyingKeys.get(header.kid);
      if (!key) throw unauthorized();
      return key;
    };
    const { payload } = await jwtVerify(match[1], keyFor, {
      algorithms: ['EdDSA'],
      currentDate: new Date(now * 1000),
      requiredClaims: ['exp', 'a', 'nb', 'cid', 'user_name', 'jti'],
    });
    if (payload.nb !== settings.chainId || typeof payload.a !== 'string' || typeof payload.exp !== 'number') {
      throw unauthorized();
    }
    const caller = { account: payload.a, username: String(payload.user_name), clientId: String(payload.cid) };
    if (settings.verified) {
      if (settings.verified.size >= VERIFIED_CACHE_SIZE)
        settings.verified.delete(settings.verified.keys().next().value as string);
      settings.verified.set(match[1], { caller, exp: payload.exp });
    }
    return caller;
  } catch (error) {
    if (error instanceof ApiError || error instanceof joseErrors.JOSEError || error instanceof TypeError) {
      throw unauthorized();
    }
    throw error;
  }
}
