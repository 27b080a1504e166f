/** Passwords for the token endpoint, signed the way wallets sign them. */

import { randomBytes } from 'node:crypto';
import {
  addressFromEthAddress,
  addressFromPublicKey,
  type ChainId,
  chainIdByte,
  keccak256,
  keyPairFromSeed,
  MESSAGE_PREFIX,
} from '@gateway/ledger';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex } from '@noble/curves/utils.js';
import bs58 from 'bs58';
import { eip712Digest, toChecksumAddress } from '../../src/crypto/ethereum.js';
import { reference } from './oracle.js';

/** The demo account: the reference library's public known-answer seed (its address is 3P9KR33…). */
export const DEMO_SEED =
  'uncle push human bus echo drastic garden joke sand warfare sentence fossil title color combine';

export interface LedgerUser {
  username: string;
  address: string;
  /** A password for `<chainId>:<clientId>:<expiry>`, signed by the reference library (randomized signatures). */
  password(expiry: number | string, options?: { chainId?: ChainId; clientId?: string; prefix?: boolean }): string;
}

export function ledgerUser(seed: string, chainId: ChainId = 'W', nonce = 0): LedgerUser {
  const keys = keyPairFromSeed(seed, nonce);
  const privateKey = bs58.encode(keys.privateKey);
  return {
    username: bs58.encode(keys.publicKey),
    address: addressFromPublicKey(keys.publicKey, chainId),
    password(expiry, options = {}) {
      const text = `${options.chainId ?? chainId}:${options.clientId ?? 'waves.exchange'}:${expiry}`;
      const body = new TextEncoder().encode(text);
      const bytes = options.prefix === false ? body : new Uint8Array([...MESSAGE_PREFIX, ...body]);
      return `${expiry}:${reference.signBytes({ privateKey }, bytes)}`;
    },
  };
}

export interface EthUser extends LedgerUser {
  ethAddress: string;
}

/** An Ethereum-style account signing the token text as EIP-712 typed data (as the MetaMask provider does). */
export function ethUser(chainId: ChainId = 'W', privateKey = secp256k1.utils.randomSecretKey()): EthUser {
  const eth = keccak256(secp256k1.getPublicKey(privateKey, false).subarray(1)).subarray(12);
  const checksummed = toChecksumAddress(eth);
  return {
    username: checksummed,
    ethAddress: checksummed,
    address: addressFromEthAddress(eth, chainId),
    password(expiry, options = {}) {
      const text = `${options.chainId ?? chainId}:${options.clientId ?? 'waves.exchange'}:${expiry}`;
      const sig = secp256k1.sign(eip712Digest(text, chainIdByte(options.chainId ?? chainId)), privateKey, {
        prehash: false,
        format: 'recovered',
      });
      return `${expiry}:0x${bytesToHex(new Uint8Array([...sig.subarray(1), 27 + (sig[0] ?? 0)]))}`;
    },
  };
}

/**
 * An account of its own, for a test that revokes a sign-in: a revocation ends the account's passwords up to
 * the sign-in's expiry, which would refuse another test's sign-in of a shared account.
 */
export const newLedgerUser = (chainId: ChainId = 'W') => ledgerUser(randomBytes(16).toString('hex'), chainId);

/** The demo account (the seed's first account) and another account of the same seed. */
export const me = ledgerUser(DEMO_SEED);
export const someoneElse = ledgerUser(DEMO_SEED, 'W', 7);
