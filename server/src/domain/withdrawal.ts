/**
 * Withdrawal addresses: the ledger address to transfer to for a withdrawal to `destination` on a platform.
 * A proxy derived from the proxy seed at the route's index (allocated on first use, within the account's
 * limits); on the ledger's own platform, the destination itself.
 */
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import { ApiError } from '../errors.js';
import type { TermsRow } from '../store/catalogue.js';
import type { Database } from '../store/schema.js';
import { allocateProxyAddress, proxyAddressFound, proxyCount, type WithdrawalRoute } from '../store/withdrawal.js';
import type { AddressLimits } from './address-limits.js';
import { type DestinationProblem, destinationOn, isLedgerPlatform, proxyAddressFor } from './addresses.js';
import type { CatalogueCache } from './catalogue-cache.js';
import { platformOrNotFound } from './platforms.js';
import { termsOrNotFound } from './terms.js';
import type { WithdrawalLimits } from './withdrawal-limits.js';

/** What is wrong with a refused destination, in the words of its error message. */
const PROBLEMS: Record<DestinationProblem, string> = {
  format: 'is not a valid address there',
  checksum: 'fails its checksum (EIP-55 for a mixed-case 0x address): a character is wrong, or its letter case',
  mixed_case: 'mixes upper and lower case, which bech32 forbids (write it in one case)',
  network: "is an address of another network than the platform's",
};

/** The terms of an active withdrawal of `currency` to `destination` and the address to transfer to. */
export async function withdrawalAddress(
  services: {
    catalogue: CatalogueCache;
    db: Kysely<Database>;
    config: Pick<Config, 'chainId'>;
    proxySeed: string;
    withdrawalLimits: WithdrawalLimits;
    addressLimits: AddressLimits;
    /** The client's address as the per-address limits count it (null: not counted). */
    client: string | null;
  },
  route: { account: string; currency: string; destination: string; platform: string | 'default' },
  now: string,
): Promise<{ terms: TermsRow; address: string }> {
  const { account, currency } = route;
  const snapshot = await services.catalogue.get();
  const terms = termsOrNotFound(snapshot, 'withdrawal', currency, route.platform);
  const platformId = terms.platform_id;
  const { chainId } = services.config;
  const platform = platformOrNotFound(snapshot, platformId);
  const destination = destinationOn(platform, route.destination, chainId);
  if ('problem' in destination) {
    throw new ApiError('invalid_address', `address ${PROBLEMS[destination.problem]} (platform ${platformId})`, {
      details: { parameter: 'address', platform: platformId, reason: destination.problem },
    });
  }
  if (terms.status !== 'active') {
    throw new ApiError('operation_disabled', `Withdrawal of ${currency} on ${platformId} is inactive`, {
      details: { currency, platform: platformId },
    });
  }
  if (isLedgerPlatform(platform)) return { terms, address: destination.address };
  const proxyRoute: WithdrawalRoute = {
    account,
    currencyId: currency,
    platformId,
    destination: destination.address,
    caseless: destination.caseless,
  };
  // A route that has its proxy gets it back, never limited; only a new one is counted, once.
  const existing = await proxyAddressFound(services.db, proxyRoute);
  if (existing) return { terms, address: existing };
  const limits = services.withdrawalLimits;
  const key = JSON.stringify([account, currency, platformId, proxyRoute.destination]);
  const address = await limits.creation(key, async () => {
    // Created since it was looked for (by a creation that has just ended): not a new one.
    const created = await proxyAddressFound(services.db, proxyRoute);
    if (created) return created;
    // An account at its cap is refused before it is counted or waits its turn to allocate (the insert
    // checks the cap again, for the requests that pass here together).
    if ((await proxyCount(services.db, account)) >= limits.bounds.perAccount) throw limits.capReached();
    await limits.admitNew(account);
    // And per client address, whatever the account: accounts are free key pairs.
    await services.addressLimits.admitWithdrawalAddress(services.client);
    const allocation = await allocateProxyAddress(
      services.db,
      proxyRoute,
      (index) => proxyAddressFor(services.proxySeed, index, chainId),
      limits.bounds.perAccount,
      now,
    );
    if ('full' in allocation) throw limits.capReached();
    return allocation.address;
  });
  return { terms, address };
}
