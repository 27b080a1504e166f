import { describe, expect, it } from 'vitest';
import { chainIdByte } from '../src/chain.js';
import { ledgerMessageBytes, MESSAGE_PREFIX, tokenText } from '../src/message.js';

describe('the token message', () => {
  it('is `<chainId>:<clientId>:<expiry>`, with the expiry text kept as given', () => {
    expect(tokenText('W', 'waves.exchange', 1794402800)).toBe('W:waves.exchange:1794402800');
    expect(tokenText('T', 'wx.network', '01794402800')).toBe('T:wx.network:01794402800');
  });

  it('is signed by a ledger key behind the "custom data, version 1" prefix', () => {
    expect(MESSAGE_PREFIX).toEqual(Uint8Array.of(255, 255, 255, 1));
    const text = 'W:waves.exchange:1794402800';
    expect(ledgerMessageBytes(text)).toEqual(Uint8Array.of(255, 255, 255, 1, ...new TextEncoder().encode(text)));
    expect(ledgerMessageBytes('é')).toEqual(Uint8Array.of(255, 255, 255, 1, 0xc3, 0xa9));
  });
});

describe('chain ids', () => {
  it('are carried as their ASCII byte', () => {
    expect(chainIdByte('W')).toBe(87);
    expect(chainIdByte('T')).toBe(84);
  });
});
