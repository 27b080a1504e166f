/** Destination addresses: what each kind of platform accepts. */
import { describe, expect, it } from 'vitest';
import { isValidDestination } from '../../src/domain/addresses.js';

describe('destination addresses', () => {
  const evm = { address_kind: 'evm', xpub: '', network: null };
  const btc = { address_kind: 'bitcoin', xpub: '', network: 'mainnet' };
  const ledger = { address_kind: 'ledger', xpub: '', network: null };
  it.each([
    [evm, '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', true],
    [evm, '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed', true],
    [btc, 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', true],
    [btc, 'bc1p5d7rjq7g6rdk2yhzks9smlaqtedr4dekq08ge8ztwac72sfr9rusxg3297', true],
    [btc, '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', true],
    [btc, '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', true],
    [btc, '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3', false],
    [btc, 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq0', false],
    [ledger, '3P9KR33QyXwfTXv8kKtNGZYtgKk3RXSUk36', true],
    [ledger, '3MwJc5iX7QQGq5ciVFdNK7B5KSEGbUCVxDw', false],
  ])('%o %s -> %s', (platform, destination, valid) => {
    expect(isValidDestination(platform, destination, 'W')).toBe(valid);
  });
});
