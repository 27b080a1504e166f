/**
 * Addresses on platforms: deposit addresses derived from a platform's extended public key (the server
 * never holds their private keys), and the check of a withdrawal destination for a platform.
 *
 * A platform of kind `ledger` is the exchange ledger itself: a deposit there is a transfer on the ledger to
 * the account's own address, and a withdrawal there a transfer straight to the destination. Nothing is
 * derived or allocated for it, and it has no extended public key.
 */

import type { components } from '@gateway/generated';
import { addressFromPublicKey, type ChainId, isLedgerAddress, keccak256, keyPairFromSeed } from '@gateway/ledger';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bech32, bech32m, createBase58check } from '@scure/base';
import { HDKey } from '@scure/bip32';
import { parseEthAddress, toChecksumAddress } from '../crypto/ethereum.js';

export type AddressKind = components['schemas']['AddressKind'];
export type BitcoinNetwork = 'mainnet' | 'testnet';

export interface PlatformAddressing {
  address_kind: string;
  xpub: string;
  network: string | null;
}

/** BIP32 version bytes of testnet extended keys (`tpub`/`tprv`). */
const TESTNET_VERSIONS = { private: 0x04358394, public: 0x043587cf };
/** Largest non-hardened BIP32 child index. */
export const MAX_CHILD_INDEX = 0x7fffffff;
const base58check = createBase58check(sha256);

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

function isBitcoinAddress(text: string, network: BitcoinNetwork): boolean {
  const hrp = network === 'testnet' ? 'tb' : 'bc';
  const lower = text.toLowerCase();
  if (lower.startsWith(`${hrp}1`)) {
    if (text !== lower && text !== text.toUpperCase()) return false;
    for (const codec of [bech32, bech32m]) {
      try {
        const { prefix, words } = codec.decode(lower as `${string}1${string}`, 90);
        const [version, ...rest] = words;
        if (prefix !== hrp || version === undefined || version > 16) continue;
        const program = codec.fromWords(rest);
        if (version === 0 && codec === bech32 && (program.length === 20 || program.length === 32)) return true;
        if (version > 0 && codec === bech32m && program.length >= 2 && program.length <= 40) return true;
      } catch {}
    }
    return false;
  }
  try {
    const raw = base58check.decode(text);
    const versions = network === 'testnet' ? [0x6f, 0xc4] : [0x00, 0x05];
    return raw.length === 21 && versions.includes(raw[0] ?? -1);
  } catch {
    return false;
  }
}

/** True when `destination` is a valid address on the platform. Never throws. */
export function isValidDestination(platform: PlatformAddressing, destination: string, chainId: ChainId): boolean {
  switch (platform.address_kind) {
    case 'evm':
      return parseEthAddress(destination) !== null;
    case 'bitcoin':
      return isBitcoinAddress(destination, platform.network === 'testnet' ? 'testnet' : 'mainnet');
    case 'ledger':
      return isLedgerAddress(destination, chainId);
    default:
      return false;
  }
}

/** The withdrawal proxy address at account nonce `index` of the proxy seed (the ledger's numbering). */
export function proxyAddressFor(proxySeed: string, index: number, chainId: ChainId): string {
  return addressFromPublicKey(keyPairFromSeed(proxySeed, index).publicKey, chainId);
}
