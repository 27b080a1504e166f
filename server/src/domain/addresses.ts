/**
 * Addresses on platforms: deposit addresses derived from a platform's extended public key (the server
 * never holds their private keys), and the check of a withdrawal destination for a platform, with the one
 * form it is stored and compared in.
 *
 * A platform of kind `ledger` is the exchange ledger itself: a deposit there is a transfer on the ledger to
 * the account's own address, and a withdrawal there a transfer straight to the destination. Nothing is
 * derived or allocated for it, and it has no extended public key.
 */

import type { RecordTypes } from '@gateway/generated';
import { addressFromPublicKey, type ChainId, isLedgerAddress, keccak256, keyPairFromSeed } from '@gateway/ledger';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bech32 } from '@scure/base';
import { HDKey } from '@scure/bip32';
import { parseBitcoinAddress } from '../crypto/bitcoin.js';
import { normalEthAddress, toChecksumAddress } from '../crypto/ethereum.js';

export type AddressKind = RecordTypes['AddressKind'];

export interface PlatformAddressing {
  address_kind: string;
  xpub: string;
  network: string | null;
}

/** BIP32 version bytes of testnet extended keys (`tpub`/`tprv`). */
const TESTNET_VERSIONS = { private: 0x04358394, public: 0x043587cf };
/** Largest non-hardened BIP32 child index. */
export const MAX_CHILD_INDEX = 0x7fffffff;

/** True for the ledger's own platform, where addresses are ledger addresses and no gateway stands between. */
export const isLedgerPlatform = (platform: Pick<PlatformAddressing, 'address_kind'>): boolean =>
  platform.address_kind === 'ledger';

/** Parses an extended public key (`xpub…` or `tpub…`); throws on anything else, including private keys. */
export function parseExtendedPublicKey(xpub: string): HDKey {
  const key = HDKey.fromExtendedKey(xpub, xpub.startsWith('tpub') ? TESTNET_VERSIONS : undefined);
  if (key.privateKey) throw new Error('an extended PRIVATE key was given; only public keys belong in the catalogue');
  return key;
}

const hdCache = new Map<string, HDKey>();
function hdKey(xpub: string): HDKey {
  let key = hdCache.get(xpub);
  if (!key) {
    key = parseExtendedPublicKey(xpub);
    hdCache.set(xpub, key);
  }
  return key;
}

/** The deposit address at non-hardened child `index` of the platform's extended public key. */
export function depositAddressFor(platform: PlatformAddressing, index: number): string {
  if (!Number.isInteger(index) || index < 0 || index > MAX_CHILD_INDEX)
    throw new RangeError('child index out of range');
  const child = hdKey(platform.xpub).deriveChild(index);
  const publicKey = child.publicKey;
  if (!publicKey) throw new Error('derivation gave no public key');
  switch (platform.address_kind) {
    case 'evm': {
      const uncompressed = secp256k1.Point.fromBytes(publicKey).toBytes(false);
      return toChecksumAddress(keccak256(uncompressed.subarray(1)).subarray(12));
    }
    case 'bitcoin': {
      const program = ripemd160(sha256(publicKey));
      return bech32.encode(platform.network === 'testnet' ? 'tb' : 'bc', [0, ...bech32.toWords(program)]);
    }
    default:
      throw new Error(`deposit addresses are not derived for ${platform.address_kind} platforms`);
  }
}

/** Why a destination is refused (the error's `details.reason`). */
export type DestinationProblem = 'format' | 'checksum' | 'mixed_case' | 'network';

/**
 * A destination in its one normal form, the form stored and compared: every spelling of one address gives
 * one proxy. `caseless`: the platform's addresses ignore letter case (EVM, bech32), so rows stored before
 * destinations were normalised are found by their lowercase form.
 */
export type Destination = { address: string; caseless: boolean } | { problem: DestinationProblem };

/**
 * The destination of a withdrawal on the platform, by the platform's `address_kind` (the catalogue's):
 * EVM: `0x` and 40 hex digits, mixed case only with its EIP-55 checksum, stored in lowercase; bitcoin:
 * bech32/bech32m of the platform's network in one letter case, stored in lowercase, or base58check as it
 * is; ledger: a ledger address of this chain, as it is. Never throws.
 */
export function destinationOn(platform: PlatformAddressing, destination: string, chainId: ChainId): Destination {
  switch (platform.address_kind) {
    case 'evm': {
      const parsed = normalEthAddress(destination);
      return 'problem' in parsed ? parsed : { address: parsed.address, caseless: true };
    }
    case 'bitcoin':
      return parseBitcoinAddress(destination, platform.network === 'testnet' ? 'testnet' : 'mainnet');
    case 'ledger':
      return isLedgerAddress(destination, chainId) ? { address: destination, caseless: false } : { problem: 'format' };
    default:
      return { problem: 'format' };
  }
}

/** True when `destination` is a valid address on the platform. Never throws. */
export function isValidDestination(platform: PlatformAddressing, destination: string, chainId: ChainId): boolean {
  return !('problem' in destinationOn(platform, destination, chainId));
}

/** The withdrawal proxy address at account nonce `index` of the proxy seed (the ledger's numbering). */
export function proxyAddressFor(proxySeed: string, index: number, chainId: ChainId): string {
  return addressFromPublicKey(keyPairFromSeed(proxySeed, index).publicKey, chainId);
}
