/** Destination addresses: what each kind of platform accepts, and the one form each is stored and compared in. */
import { describe, expect, it } from 'vitest';
import { destinationOn, isValidDestination } from '../../src/domain/addresses.js';

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

  // EIP-55's own examples: all-caps, all-lowercase and checksummed spellings of addresses.
  const EIP55 = [
    '0x52908400098527886E0F7030069857D2E4169EE7',
    '0xde709f2102306220921060314715629080e2fb77',
    '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
    '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
    '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
  ];

  it.each(EIP55)('an EVM destination %s is stored in lowercase, whatever its valid letter case', (address) => {
    const normal = { address: address.toLowerCase(), caseless: true };
    expect(destinationOn(evm, address, 'W')).toEqual(normal);
    expect(destinationOn(evm, address.toLowerCase(), 'W')).toEqual(normal);
    expect(destinationOn(evm, `0x${address.slice(2).toUpperCase()}`, 'W')).toEqual(normal);
  });

  it.each([
    ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD', 'checksum'], // one letter's case flipped
    ['0x5AAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', 'checksum'],
    ['0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d358', 'checksum'], // one digit changed in a checksummed address
    ['0X5aaeb6053f3e94c9b9a09f33669435e7ef1beaed', 'format'], // the prefix is 0x
    ['0x5aaeb6053f3e94c9b9a09f33669435e7ef1beae', 'format'], // 39 digits
    ['0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaedd', 'format'], // 41 digits
    ['5aaeb6053f3e94c9b9a09f33669435e7ef1beaed00', 'format'],
    ['0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaeg', 'format'],
  ])('an EVM destination %s is refused: %s', (address, problem) => {
    expect(destinationOn(evm, address, 'W')).toEqual({ problem });
  });

  it('a bitcoin destination: bech32 in lowercase (uppercase taken), base58check as it is; ledger as it is', () => {
    const segwit = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
    expect(destinationOn(btc, segwit.toUpperCase(), 'W')).toEqual({ address: segwit, caseless: true });
    expect(destinationOn(btc, 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5Mdq', 'W')).toEqual({ problem: 'mixed_case' });
    expect(destinationOn({ ...btc, network: 'testnet' }, segwit, 'W')).toEqual({ problem: 'network' });
    expect(destinationOn(btc, '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', 'W')).toEqual({
      address: '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy',
      caseless: false,
    });
    expect(destinationOn(ledger, '3P9KR33QyXwfTXv8kKtNGZYtgKk3RXSUk36', 'W')).toEqual({
      address: '3P9KR33QyXwfTXv8kKtNGZYtgKk3RXSUk36',
      caseless: false,
    });
    expect(destinationOn({ address_kind: 'solana', xpub: '', network: null }, segwit, 'W')).toEqual({
      problem: 'format',
    });
  });
});
