/**
 * Bounds per client address (an IPv6 client by its /64, as every per-address limit here) on what costs the
 * store rows for ever and needs no more than a free key pair: new sign-ins (password grants) and new
 * withdrawal proxies, each so many an hour. Accounts are free, so the limits per account (a proxy cap, a
 * rate) do not bound one client that makes accounts: one address made 30 proxies in 0.3 s through 3 new
 * accounts, about 6,000 rows a minute at the token endpoint's rate limit.
 *
 * Counted like the other limits: in Redis, shared by every instance, while it answers; in memory otherwise.
 */
import { ApiError } from '../errors.js';
import type { WindowCounter } from './withdrawal-limits.js';

/** The operator's bounds (SIGN_INS_PER_ADDRESS_HOUR, WITHDRAWAL_ADDRESSES_PER_ADDRESS_HOUR); 0: no bound. */
export interface AddressBounds {
  signInsPerHour: number;
  withdrawalAddressesPerHour: number;
}

const HOUR_MS = 3_600_000;

export class AddressLimits {
  constructor(
    readonly bounds: AddressBounds,
    private readonly counter: WindowCounter,
  ) {}

  /** Counts a password grant from `client`, or throws the 429 that says when to try again. */
  admitSignIn(client: string | null): Promise<void> {
    return this.#admit('sign-in', client, this.bounds.signInsPerHour, 'sign-ins');
  }

  /** Counts a new withdrawal proxy asked for from `client`, or throws the 429. */
  admitWithdrawalAddress(client: string | null): Promise<void> {
    return this.#admit('proxy', client, this.bounds.withdrawalAddressesPerHour, 'new withdrawal addresses');
  }

  async #admit(kind: string, client: string | null, max: number, what: string): Promise<void> {
    if (client === null || max <= 0) return;
    const { count, ttlMs } = await this.counter.hit(`${kind}:${client}`, HOUR_MS, max);
    if (count <= max) return;
    const retryAfter = Math.max(1, Math.ceil(ttlMs / 1000));
    throw new ApiError(
      'rate_limited',
      `Too many ${what} from this address: at most ${max} an hour; retry after ${retryAfter} s`,
      { details: { limit: String(max) }, headers: { 'retry-after': String(retryAfter) } },
    );
  }
}
