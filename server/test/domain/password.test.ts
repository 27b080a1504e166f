/** The password grant's proof in-process: the known accounts (decoded key and address kept per chain). */
import { addressFromPublicKey } from '@gateway/ledger';
import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import { verifyPasswordGrant } from '../../src/domain/password.js';
import type { TokenSettings } from '../../src/domain/token-settings.js';
import { ledgerUser } from '../support/signers.js';

const now = Math.floor(Date.now() / 1000);
const settingsOf = (chainId: 'W' | 'T') => ({ chainId, clientIds: ['waves.exchange'] }) as unknown as TokenSettings;
const grant = (username: string, password: string) => ({
  scope: 'general',
  clientId: 'waves.exchange',
  username,
  password,
});

describe('verifyPasswordGrant on a known account', () => {
  it('gives each chain its own address for the same key, again and again', () => {
    const user = ledgerUser('password test: two chains');
    const key = bs58.decode(user.username);
    for (let round = 0; round < 2; round++) {
      for (const chainId of ['W', 'T'] as const) {
        const proven = verifyPasswordGrant(
          grant(user.username, user.password(now + 60 + round, { chainId })),
          settingsOf(chainId),
          now,
        );
        expect(proven.address).toBe(addressFromPublicKey(key, chainId));
      }
    }
  });

  it('still checks the signature of an account it knows', () => {
    const user = ledgerUser('password test: known, then forged');
    const other = ledgerUser('password test: someone else');
    expect(verifyPasswordGrant(grant(user.username, user.password(now + 60)), settingsOf('W'), now).address).toBe(
      user.address,
    );
    // The other key's valid signature, presented under the known username.
    expect(() => verifyPasswordGrant(grant(user.username, other.password(now + 60)), settingsOf('W'), now)).toThrow(
      expect.objectContaining({ kind: 'invalid_signature' }),
    );
  });
});
