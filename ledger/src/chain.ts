/** The ledger's networks and the byte that stands for each in addresses and signed data. */

/** `W` is the main network, `T` the test network. */
export type ChainId = 'W' | 'T';

/** The byte of a chain id (its ASCII code: 87 for `W`, 84 for `T`), as addresses and the EIP-712 domain carry it. */
export const chainIdByte = (chainId: ChainId): number => chainId.charCodeAt(0);
