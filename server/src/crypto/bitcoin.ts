/**
 * Bitcoin addresses as a destination: segwit (BIP 173 bech32 for version 0, BIP 350 bech32m for versions 1
 * to 16) and legacy base58check (P2PKH, P2SH), each of one network. Checksums are verified by @scure/base.
 *
 * @see https://github.com/bitcoin/bips/blob/master/bip-0173.mediawiki (bech32: "Decoders MUST NOT accept
 *   strings where some characters are uppercase and some are lowercase"; lowercase is the canonical form)
 * @see https://github.com/bitcoin/bips/blob/master/bip-0350.mediawiki (bech32m)
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bech32, bech32m, createBase58check } from '@scure/base';

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
/** A base58check address: a version byte and a 20-byte hash, written in 26 to 35 characters. */
const BASE58_PAYLOAD_LENGTH = 21;
const BASE58_TEXT_LENGTH = { min: 26, max: 35 };
const base58check = createBase58check(sha256);

const otherNetwork = (network: BitcoinNetwork): BitcoinNetwork => (network === 'mainnet' ? 'testnet' : 'mainnet');

/** Whether a decoded witness program is a valid one: v0 of 20 or 32 bytes (bech32), v1+ of 2 to 40 (bech32m). */
function validWitness(codec: typeof bech32, words: number[]): boolean {
  const [version, ...rest] = words;
  if (version === undefined || version > 16) return false;
  let program: Uint8Array;
  try {
    program = codec.fromWords(rest);
  } catch {
    return false;
  }
  if (version === 0) return codec === bech32 && (program.length === 20 || program.length === 32);
  return codec === bech32m && program.length >= 2 && program.length <= 40;
}

function segwitAddress(text: string, network: BitcoinNetwork): BitcoinAddress {
  const lower = text.toLowerCase();
  if (text !== lower && text !== text.toUpperCase()) return { problem: 'mixed_case' };
  let checksummed = false;
  for (const codec of [bech32, bech32m]) {
    const decoded = codec.decodeUnsafe(lower, BECH32_MAX_LENGTH);
    if (!decoded) continue;
    checksummed = true;
    if (decoded.prefix !== SEGWIT_HRP[network]) return { problem: 'network' };
    if (validWitness(codec, decoded.words)) return { address: lower, caseless: true };
  }
  return { problem: checksummed ? 'format' : 'checksum' };
}

function base58Address(text: string, network: BitcoinNetwork): BitcoinAddress {
  if (text.length < BASE58_TEXT_LENGTH.min || text.length > BASE58_TEXT_LENGTH.max) return { problem: 'format' };
  let raw: Uint8Array;
  try {
    raw = base58check.decode(text);
  } catch (error) {
    // The alphabet is checked before the checksum: a character outside it is a format problem.
    return { problem: /checksum/i.test((error as Error).message) ? 'checksum' : 'format' };
  }
  const version = raw[0] ?? -1;
  if (raw.length !== BASE58_PAYLOAD_LENGTH) return { problem: 'format' };
  if (BASE58_VERSIONS[network].includes(version)) return { address: text, caseless: false };
  return { problem: BASE58_VERSIONS[otherNetwork(network)].includes(version) ? 'network' : 'format' };
}

/** The address of `network` that `text` is, in its normal form, or why it is none. Never throws. */
export function parseBitcoinAddress(text: string, network: BitcoinNetwork): BitcoinAddress {
  const lower = text.toLowerCase();
  const segwit = [SEGWIT_HRP[network], SEGWIT_HRP[otherNetwork(network)]].some((hrp) => lower.startsWith(`${hrp}1`));
  return segwit ? segwitAddress(text, network) : base58Address(text, network);
}
