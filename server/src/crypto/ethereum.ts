/**
 * Ethereum-style accounts: addresses (EIP-55) and the EIP-712 signature that the ledger's MetaMask
 * provider makes over the token text (eth_signTypedData_v4 of `{ domain: { chainId }, primaryType:
 * Message, message: { text } }`, a 65-byte `r ‖ s ‖ v` secp256k1 signature).
 */
import { keccak256 } from '@gateway/ledger';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex, concatBytes, hexToBytes } from '@noble/curves/utils.js';

export const ETH_SIGNATURE_LENGTH = 65;
/** `0x` and 20 bytes in hex, of any letter case. */
const ETH_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const HALF_N = secp256k1.Point.Fn.ORDER >> 1n;
const utf8 = (text: string) => new TextEncoder().encode(text);

/** EIP-55 mixed-case checksum form of a 20-byte address. */
export function toChecksumAddress(address: Uint8Array): string {
  const hex = bytesToHex(address);
  const hash = bytesToHex(keccak256(utf8(hex)));
  let out = '0x';
  for (let i = 0; i < hex.length; i++) {
    const c = hex.charAt(i);
    out += Number.parseInt(hash.charAt(i), 16) >= 8 ? c.toUpperCase() : c;
  }
  return out;
}

/**
 * The 20 bytes of a `0x` address, or null. All-lowercase and all-uppercase forms carry no checksum;
 * a mixed-case form must carry a valid EIP-55 checksum.
 */
export function parseEthAddress(text: string): Uint8Array | null {
  if (!ETH_ADDRESS.test(text)) return null;
  const body = text.slice(2);
  const bytes = hexToBytes(body.toLowerCase());
  const mixed = body !== body.toLowerCase() && body !== body.toUpperCase();
  if (mixed && toChecksumAddress(bytes) !== text) return null;
  return bytes;
}

/** Why a text is not an address: not `0x` and 40 hex digits, or mixed case that is not its EIP-55 checksum. */
export type EthAddressProblem = 'format' | 'checksum';

/**
 * The address's normal form, `0x` and 40 lowercase hex digits (the one stored and compared: every letter case
 * of an address is the same account), or why `text` is no address. Never throws.
 * @see https://eips.ethereum.org/EIPS/eip-55
 */
export function normalEthAddress(text: string): { address: string } | { problem: EthAddressProblem } {
  if (!ETH_ADDRESS.test(text)) return { problem: 'format' };
  return parseEthAddress(text) ? { address: text.toLowerCase() } : { problem: 'checksum' };
}

/** The EIP-712 digest of `{ domain: { chainId }, primaryType: Message, message: { text } }`. */
export function eip712Digest(text: string, chainId: number): Uint8Array {
  const domainType = keccak256(utf8('EIP712Domain(uint256 chainId)'));
  const messageType = keccak256(utf8('Message(string text)'));
  const chainWord = new Uint8Array(32);
  new DataView(chainWord.buffer).setUint32(28, chainId, false);
  const domainSeparator = keccak256(concatBytes(domainType, chainWord));
  const structHash = keccak256(concatBytes(messageType, keccak256(utf8(text))));
  return keccak256(concatBytes(Uint8Array.of(0x19, 0x01), domainSeparator, structHash));
}

/**
 * The address that made a 65-byte `r ‖ s ‖ v` signature of `digest`, or null. High-s signatures (the
 * malleable twin of every signature) are refused. Never throws.
 */
export function recoverSigner(digest: Uint8Array, signature: Uint8Array): Uint8Array | null {
  if (signature.length !== ETH_SIGNATURE_LENGTH) return null;
  const v = signature[64] ?? 0;
  const recovery = v >= 27 ? v - 27 : v;
  if (recovery !== 0 && recovery !== 1) return null;
  try {
    const sig = secp256k1.Signature.fromBytes(signature.subarray(0, 64), 'compact');
    if (sig.s > HALF_N || sig.r === 0n || sig.s === 0n) return null;
    const point = sig.addRecoveryBit(recovery).recoverPublicKey(digest);
    return keccak256(point.toBytes(false).subarray(1)).subarray(12);
  } catch {
    return null;
  }
}
