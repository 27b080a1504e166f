/**
 * Bitcoin addresses as a destination: segwit (BIP 173 bech32 for version 0, BIP 350 bech32m for versions 1
 * to 16) and legacy base58check (P2PKH, P2SH), each of one network. Checksums are verified by @scure/base.
 *
 * @see https://github.com/bitcoin/bips/blob/master/bip-0173.mediawiki (bech32: "Decoders MUST NOT accept
 *   strings where some characters are uppercase and some are lowercase"; lowercase is the canonical form)
 * @see https://github.com/bitcoin/bips/blob/master/bip-0350.mediawiki (bech32m)
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { base58, bech32, bech32m, createBase58check } from '@scure/base';

export type BitcoinNetwork = 'mainnet' | 'testnet';

/** Why a text is not an address of the network. */
export type BitcoinAddressProblem = 'format' | 'checksum' | 'mixed_case' | 'network';

/** The address in its one normal form (bech32 in lowercase; base58check as it is, its case being its value). */
export type BitcoinAddress = { address: string; caseless: boolean } | { problem: BitcoinAddressProblem };

/** A bech32 string is at most 90 characters (BIP 173). */
const BECH32_MAX_LENGTH = 90;
/** Human-readable parts of segwit addresses by network. */
const SEGWIT_HRP: Record<BitcoinNetwork, string> = { mainnet: 'bc', testnet: 'tb' };
/** Version bytes of base58check P2PKH and P2SH addresses by network. */
const BASE58_VERSIONS: Record<BitcoinNetwork, readonly number[]> = { mainnet: [0x00, 0x05], testnet: [0x6f, 0xc4] };
/** A base58check address: a version byte and a 20-byte hash, then 4 bytes of checksum, in 26 to 35 characters. */
const BASE58_PAYLOAD_LENGTH = 21;
const BASE58_CHECKSUM_LENGTH = 4;
const BASE58_TEXT_LENGTH = { min: 26, max: 35 };
const base58check = createBase58check(sha256);

const otherNetwork = (network: BitcoinNetwork): BitcoinNetwork => (network === 'mainnet' ? 'testnet' : 'mainnet');

/** Whether a program is one of its witness version: v0 of 20 or 32 bytes, v1 to v16 of 2 to 40 (BIP 141). */
function validProgram(version: number, words: number[]): boolean {
  if (version > 16) return false;
  let program: Uint8Array;
  try {
    program = bech32.fromWords(words);
  } catch {
    return false;
  }
  return version === 0 ? program.length === 20 || program.length === 32 : program.length >= 2 && program.length <= 40;
}

function segwitAddress(text: string, network: BitcoinNetwork): BitcoinAddress {
  const lower = text.toLowerCase();
  if (text !== lower && text !== text.toUpperCase()) return { problem: 'mixed_case' };
  // Either checksum decodes the data part; the witness version then says which one it must be.
  const decoded = bech32.decodeUnsafe(lower, BECH32_MAX_LENGTH) ?? bech32m.decodeUnsafe(lower, BECH32_MAX_LENGTH);
  if (!decoded) return { problem: 'checksum' };
  const [version, ...program] = decoded.words;
  if (version === undefined) return { problem: 'format' };
  const codec = version === 0 ? bech32 : bech32m;
  if (!codec.decodeUnsafe(lower, BECH32_MAX_LENGTH)) return { problem: 'checksum' };
  if (decoded.prefix !== SEGWIT_HRP[network]) return { problem: 'network' };
  return validProgram(version, program) ? { address: lower, caseless: true } : { problem: 'format' };
}

function decodeBase58(text: string): Uint8Array | null {
  try {
    return base58.decode(text);
  } catch {
    return null;
  }
}

function base58Address(text: string, network: BitcoinNetwork): BitcoinAddress {
  if (text.length < BASE58_TEXT_LENGTH.min || text.length > BASE58_TEXT_LENGTH.max) return { problem: 'format' };
  const bytes = decodeBase58(text);
  if (!bytes || bytes.length !== BASE58_PAYLOAD_LENGTH + BASE58_CHECKSUM_LENGTH) return { problem: 'format' };
  let raw: Uint8Array;
  try {
    raw = base58check.decode(text);
  } catch {
    return { problem: 'checksum' };
  }
  const version = raw[0] ?? -1;
  if (BASE58_VERSIONS[network].includes(version)) return { address: text, caseless: false };
  return { problem: BASE58_VERSIONS[otherNetwork(network)].includes(version) ? 'network' : 'format' };
}

/** The address of `network` that `text` is, in its normal form, or why it is none. Never throws. */
export function parseBitcoinAddress(text: string, network: BitcoinNetwork): BitcoinAddress {
  const lower = text.toLowerCase();
  const segwit = [SEGWIT_HRP[network], SEGWIT_HRP[otherNetwork(network)]].some((hrp) => lower.startsWith(`${hrp}1`));
  return segwit ? segwitAddress(text, network) : base58Address(text, network);
}
