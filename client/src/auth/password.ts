/**
 * The token request's `password`: `<expiry>:<signature>` over `[255,255,255,1] ‖ "<chainId>:<client_id>:<expiry>"`.
 * @see ../../../spec/paths/token.yaml
 */
import { type ChainId, chainIdByte, ledgerMessageBytes, tokenText } from '@gateway/ledger';
import bs58 from 'bs58';
import type { LedgerSigner } from './ledger.js';

/** A signer of the token text that adds the ledger prefix itself (the ledger's wallet providers do). */
export interface MessageSigner {
  readonly kind: 'message';
  readonly publicKey: string;
  signMessage(text: string): Promise<Uint8Array | string>;
}

/** An Ethereum-style account signing the text as EIP-712 typed data (`username` is its 0x address). */
export interface TypedDataSigner {
  readonly kind: 'eip712';
  readonly address: string;
  /** Returns the 65-byte signature, as bytes or 0x-hex (eth_signTypedData_v4 of `typedDataFor`). */
  signTypedData(typedData: ReturnType<typeof typedDataFor>): Promise<Uint8Array | string>;
}

export type Signer = LedgerSigner | MessageSigner | TypedDataSigner;

/** The EIP-712 typed data that the ledger's MetaMask provider signs for the token text. */
export function typedDataFor(text: string, chainId: ChainId) {
  return {
    types: {
      EIP712Domain: [{ name: 'chainId', type: 'uint256' }],
      Message: [{ name: 'text', type: 'string' }],
    },
    domain: { chainId: chainIdByte(chainId) },
    primaryType: 'Message' as const,
    message: { text },
  };
}

export const usernameOf = (signer: Signer): string => (signer.kind === 'eip712' ? signer.address : signer.publicKey);

const encodeSignature = (signature: Uint8Array | string, kind: Signer['kind']): string =>
  typeof signature === 'string'
    ? signature
    : kind === 'eip712'
      ? `0x${Array.from(signature, (b) => b.toString(16).padStart(2, '0')).join('')}`
      : bs58.encode(signature);

/** Builds the password for `expiry` (Unix seconds, at most one week ahead). */
export async function passwordFor(signer: Signer, chainId: ChainId, clientId: string, expiry: number): Promise<string> {
  if (!Number.isInteger(expiry) || expiry <= 0) throw new RangeError('expiry is a Unix time in seconds');
  const text = tokenText(chainId, clientId, expiry);
  const signature =
    signer.kind === 'ledger'
      ? await signer.sign(ledgerMessageBytes(text))
      : signer.kind === 'message'
        ? await signer.signMessage(text)
        : await signer.signTypedData(typedDataFor(text, chainId));
  return `${expiry}:${encodeSignature(signature, signer.kind)}`;
}
