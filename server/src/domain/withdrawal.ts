/**
 * Withdrawal addresses: the ledger address to transfer to for a withdrawal to `destination` on a platform.
 * A proxy derived from the proxy seed at the route's index (allocated on first use); on the ledger's own
 * platform, the destination itself.
 */
import type { Services } from '../context.js';
import { ApiError } from '../errors.js';
import type { TermsRow } from '../store/catalogue.js';
import { proxyAddressOf } from '../store/withdrawal.js';
import { isLedgerPlatform, isValidDestination, proxyAddressFor } from './addresses.js';
import { platformOrNotFound } from './platforms.js';
import { termsOrNotFound } from './terms.js';

/** The terms of an active withdrawal of `currency` to `destination` and the address to transfer to. */
export async function withdrawalAddress(
  services: Pick<Services, 'catalogue' | 'db' | 'config' | 'proxySeed'>,
  route: { account: string; currency: string; destination: string; platform: string | 'default' },
  now: string,
): Promise<{ terms: TermsRow; address: string }> {
  const { account, currency, destination } = route;
  const snapshot = await services.catalogue.get();
  const terms = termsOrNotFound(snapshot, 'withdrawal', currency, route.platform);
  const addressing = platformOrNotFound(snapshot, terms.platform_id);
  const { chainId } = services.config;
  if (!isValidDestination(addressing, destination, chainId)) {
    throw new ApiError('invalid_address', `address is not a valid ${terms.platform_id} address`, {
      details: { parameter: 'address', platform: terms.platform_id },
    });
  }
  if (terms.status !== 'active') {
    throw new ApiError('operation_disabled', `Withdrawal of ${currency} on ${terms.platform_id} is inactive`, {
      details: { currency, platform: terms.platform_id },
    });
  }
  if (isLedgerPlatform(addressing)) return { terms, address: destination };
  const address = await proxyAddressOf(
    services.db,
    { account, currencyId: currency, destination, platformId: terms.platform_id },
    (index) => proxyAddressFor(services.proxySeed, index, chainId),
    now,
  );
  return { terms, address };
}
