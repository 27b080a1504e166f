/** Bitcoin destinations: the test vectors of BIP 173 and BIP 350, base58check, and the normal form. */
import { describe, expect, it } from 'vitest';
import { parseBitcoinAddress } from '../../src/crypto/bitcoin.js';

describe('bitcoin addresses', () => {
  it.each([
    // BIP 173 (segwit v0, bech32) and BIP 350 (v1+, bech32m) valid mainnet and testnet addresses.
    ['BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', 'mainnet'],
    ['tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7', 'testnet'],
    ['bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y', 'mainnet'],
    ['BC1SW50QGDZ25J', 'mainnet'],
    ['bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs', 'mainnet'],
    ['tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c', 'testnet'],
    ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0', 'mainnet'],
    ['bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', 'mainnet'],
  ] as const)('takes %s (%s), in lowercase', (text, network) => {
    expect(parseBitcoinAddress(text, network)).toEqual({ address: text.toLowerCase(), caseless: true });
  });

  it.each([
    // BIP 350's invalid addresses, each with the reason it is refused.
    ['tc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq5zuyut', 'format'], // unknown human-readable part
    ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd', 'checksum'], // bech32 instead of bech32m
    ['tb1z0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqglt7rf', 'checksum'],
    ['BC1S0XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ54WELL', 'checksum'],
    ['bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh', 'checksum'], // bech32m instead of bech32 (v0)
    ['tb1q0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq24jc47', 'checksum'],
    ['bc1p38j9r5y49hruaue7wxjce0updqjuyyx0kh56v8s25huc6995vvpql3jow4', 'checksum'], // a character off the alphabet
    ['BC130XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ7ZWS8R', 'format'], // witness version 17
    ['bc1pw5dgrnzv', 'format'], // a program of 1 byte
    ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v8n0nx0muaewav253zgeav', 'format'], // 41 bytes
    ['BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P', 'format'], // v0 of 16 bytes
    ['tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq47Zagq', 'mixed_case'],
    ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v07qwwzcrf', 'format'], // zero padding over 4 bits
    ['tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vpggkg4j', 'format'], // non-zero padding
    ['bc1gmk9yu', 'format'], // an empty data part
  ] as const)('refuses %s on the mainnet or testnet: %s', (text, problem) => {
    const network = text.toLowerCase().startsWith('tb1') ? 'testnet' : 'mainnet';
    expect(parseBitcoinAddress(text, network)).toEqual({ problem });
  });

  it('refuses mixed case before anything else, and a letter case changed in a valid address', () => {
    expect(parseBitcoinAddress('bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mDq', 'mainnet')).toEqual({
      problem: 'mixed_case',
    });
    expect(parseBitcoinAddress('Bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', 'mainnet')).toEqual({
      problem: 'mixed_case',
    });
  });

  it('refuses an address of the other network as such, segwit and base58check', () => {
    expect(parseBitcoinAddress('tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx', 'mainnet')).toEqual({
      problem: 'network',
    });
    expect(parseBitcoinAddress('bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', 'testnet')).toEqual({
      problem: 'network',
    });
    expect(parseBitcoinAddress('mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn', 'mainnet')).toEqual({ problem: 'network' });
    expect(parseBitcoinAddress('1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', 'testnet')).toEqual({ problem: 'network' });
  });

  it('takes base58check P2PKH and P2SH as they are (their letter case is their value)', () => {
    for (const text of ['1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy']) {
      expect(parseBitcoinAddress(text, 'mainnet')).toEqual({ address: text, caseless: false });
    }
    expect(parseBitcoinAddress('mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn', 'testnet')).toEqual({
      address: 'mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn',
      caseless: false,
    });
  });

  it.each([
    ['1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3', 'checksum'], // the last character changed
    ['1BvBMSEYstWetqTFn5Au4m4GFg7xJaNvN2', 'checksum'], // a letter's case changed
    ['1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN0', 'format'], // 0 is no base58 digit
    ['1', 'format'],
    ['', 'format'],
    ['3P9KR33QyXwfTXv8kKtNGZYtgKk3RXSUk36', 'format'], // a ledger address: another payload
  ] as const)('refuses the base58 text %j: %s', (text, problem) => {
    expect(parseBitcoinAddress(text, 'mainnet')).toEqual({ problem });
  });
});
