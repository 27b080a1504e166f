/**
 * The password grant's proof: a signature over `<chainId>:<client_id>:<expiry>` by the ledger key
 * (Curve25519) or the Ethereum-style account (EIP-712) of the username, for an expiry at most a week ahead.
 * @see ../../../spec/paths/token.yaml
 */
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
import { verifyLedgerSignature } from '../crypto/curve25519.js';
import { ETH_SIGNATURE_LENGTH, eip712Digest, parseEthAddress, recoverSigner } from '../crypto/ethereum.js';
import { ApiError } from '../errors.js';
import { ownCopy } from '../lib/own-copy.js';
import { SCOPE, type TokenSettings } from './token-settings.js';

/** The clock skew tolerated on top of the longest lifetime (`MAX_LIFETIME_SECONDS`, one week). */
export const CLOCK_SKEW_SECONDS = 300;
const BASE58 = /^[1-9A-HJ-NP-Za-km-z]+$/;

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
  | { kind: 'ledger'; publicKey: Uint8Array }
  | { kind: 'ethereum'; ethAddress: Uint8Array; address: string };

/**
 * The ledger addresses of the usernames (by chain) that proved their key, oldest first: an address is two
 * hashes of the key (BLAKE2b and Keccak, in JavaScript), most of the 7% of a warm grant's CPU that the key's
 * decoding and its address took, the same every time the account signs in. It is looked up only once the
 * signature is verified (the key is decoded every time, a few microseconds), so that a refusal does the same
 * work for a key seen before as for one never seen: its time would tell that the key signed in here. Only
 * proven keys are put in, so failed attempts never push a real account's out.
 */
const KNOWN_ACCOUNTS = 10_000;
const known = new Map<string, string>();

function ledgerAddress(id: string, publicKey: Uint8Array, chainId: ChainId): string {
  const seen = known.get(id);
  if (seen !== undefined) return seen;
  const address = addressFromPublicKey(publicKey, chainId);
  if (known.size >= KNOWN_ACCOUNTS) known.delete(known.keys().next().value as string);
  // A copy of the key, not the text it was made from: the username is a slice of the request's body, and a
  // slice keeps all of that text alive (about 220 bytes more an entry, 2 MB for a full map).
  known.set(ownCopy(id), address);
  return address;
}

function accountOf(username: string, chainId: ChainId): Account {
  if (username.startsWith('0x')) {
    const ethAddress = parseEthAddress(username);
    if (ethAddress) return { kind: 'ethereum', ethAddress, address: addressFromEthAddress(ethAddress, chainId) };
  } else {
    const publicKey = decodeBase58(username, PUBLIC_KEY_LENGTH);
    if (publicKey) return { kind: 'ledger', publicKey };
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
  const address =
    account.kind === 'ethereum'
      ? account.address
      : ledgerAddress(`${settings.chainId}${grant.username}`, account.publicKey, settings.chainId);
  return { address, expiry };
}
