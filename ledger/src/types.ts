/** Aliases that say what a string holds. */

/** Base58 text (Bitcoin alphabet) of some bytes. */
export type Base58 = string;
/** A ledger address as base58 text: 26 bytes, beginning with `3P` on `W`, `3M` or `3N` on `T`. */
export type LedgerAddress = Base58;
