/** Lengths, in bytes, of what the ledger signs, derives and encodes; and the longest token lifetime. */

/** A Curve25519 public key: the Montgomery u-coordinate, little-endian. */
export const PUBLIC_KEY_LENGTH = 32;
/** A clamped Curve25519 private key. */
export const PRIVATE_KEY_LENGTH = 32;
/** A ledger signature: `R ‖ S`, with the Edwards key's sign bit in the top bit of the last byte. */
export const SIGNATURE_LENGTH = 64;
/** The first byte of every address. */
export const ADDRESS_VERSION = 1;
/** An address: version, chain id byte, 20-byte hash, 4-byte checksum. */
export const ADDRESS_LENGTH = 26;
/** The part of an address that names the account: a public-key hash or an Ethereum address. */
export const ADDRESS_HASH_LENGTH = 20;
/** The checksum that ends an address. */
export const ADDRESS_CHECKSUM_LENGTH = 4;
/** An Ethereum-style account's address. */
export const ETH_ADDRESS_LENGTH = 20;
/** The longest a token may live: a signed expiry lies at most one week ahead. */
export const MAX_LIFETIME_SECONDS = 604_800;
