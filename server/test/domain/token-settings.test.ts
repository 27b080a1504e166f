/**
 * The claims a sign-in's row keeps (`storedClaims`) read back whole by `claimsOf`, and the forms written before
 * it: the named short form and an old-form refresh token's claims, kept as issued.
 */
import { describe, expect, it } from 'vitest';
import { claimsOf, type IssuedClaims, storedClaims } from '../../src/domain/token-settings.js';

const account = '3PAWwWa6GbwcJaFzwqXQN5KQm7H96Y7SHTQ';
const claims: IssuedClaims = {
  a: account,
  nb: 'W',
  user_name: '9p2Fz8VYq4dG4sXbDd6x8CwQjU4y7o9sQm2q1bS8FhGz',
  pk: '9p2Fz8VYq4dG4sXbDd6x8CwQjU4y7o9sQm2q1bS8FhGz',
  cid: 'waves.exchange',
  lt: 86_400,
};

describe('stored claims', () => {
  it('reads back the claims it stores, with the account from the row', () => {
    expect(claimsOf(storedClaims(claims), account)).toEqual(claims);
  });

  it('stores neither the account nor the username twice', () => {
    const stored = storedClaims(claims);
    expect(stored).not.toContain(account);
    expect(stored.split(claims.user_name)).toHaveLength(2);
    expect(stored.length).toBeLessThan(80);
  });

  it('reads the named short form written before', () => {
    const named = JSON.stringify({ u: claims.user_name, n: 'W', c: 'waves.exchange', l: 86_400 });
    expect(claimsOf(named, account)).toEqual(claims);
  });

  it('reads an old-form refresh token’s claims, kept whole', () => {
    expect(claimsOf(JSON.stringify(claims), 'ignored')).toEqual(claims);
  });
});
