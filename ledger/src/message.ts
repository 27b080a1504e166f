/**
 * The token request's signed message. Its text is `<chainId>:<client_id>:<expiry>`; a ledger key signs
 * `[255, 255, 255, 1] ‖ utf8(text)`, the ledger's "custom data, version 1" prefix, which wallet providers
 * (the ledger's Signer and Keeper `signMessage`) add themselves. An Ethereum-style wallet signs the text
 * alone, as EIP-712 typed data.
 */
import type { ChainId } from './chain.js';

/** The ledger's "custom data, version 1" prefix of signed messages. */
export const MESSAGE_PREFIX: Uint8Array = Uint8Array.of(255, 255, 255, 1);

/**
 * The token text `<chainId>:<clientId>:<expiry>`. A verifier passes the expiry text exactly as it arrived:
 * re-formatting a parsed number can change the bytes that were signed.
 */
export const tokenText = (chainId: ChainId, clientId: string, expiry: string | number): string =>
  `${chainId}:${clientId}:${expiry}`;

/** The bytes a ledger key signs for a message text: `MESSAGE_PREFIX ‖ utf8(text)`. */
export function ledgerMessageBytes(text: string): Uint8Array {
  const body = new TextEncoder().encode(text);
  const bytes = new Uint8Array(MESSAGE_PREFIX.length + body.length);
  bytes.set(MESSAGE_PREFIX);
  bytes.set(body, MESSAGE_PREFIX.length);
  return bytes;
}
