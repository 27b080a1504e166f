/**
 * A hostile client spreads its token requests over the addresses of one IPv6 /64 (issue 39, finding 7):
 * one host or one home is given a whole /64, 2^64 addresses, and the token endpoint's rate limit counted
 * each apart (200 addresses of one /64: 200 answers, no 429), while the connection cap groups them. Against
 * the real server behind a proxy (TRUST_PROXY_HOPS=1, the client's address in `X-Forwarded-For`), at the
 * default limit of 60 a minute: the /64's requests past the limit are refused 429 whichever of its addresses
 * and however written, while another /64 and an IPv4 client are still answered. The figures go to
 * `npm run prove` ('hostile-ipv6-rate-limit').
 *
 *   cd test && npx vitest run attack/ipv6-rate-limit
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordFigures } from '../src/figures.js';
import { type RunningGateway, startGateway } from '../src/gateway.js';

/** TOKEN_RATE_LIMIT's default (.env.example): requests a minute per client. */
const LIMIT = 60;
const ADDRESSES = 200;

/** A token request from `address` (as the proxy in front reports it): its status. */
async function tokenRequest(gateway: RunningGateway, address: string): Promise<number> {
  const response = await fetch(`${gateway.url}/v1/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': address },
    body: new URLSearchParams({ grant_type: 'refresh_token', scope: 'general', client_id: 'waves.exchange' }),
  });
  await response.arrayBuffer();
  return response.status;
}

/** The i-th address of the /64 `2001:db8:39:64::/64`, written in the ways an address may be. */
function addressOfTheNetwork(i: number): string {
  const low = (i + 1).toString(16);
  switch (i % 4) {
    case 0:
      return `2001:db8:39:64::${low}`;
    case 1:
      return `2001:0DB8:0039:0064:${low}:0:0:${low}`;
    case 2:
      return `2001:db8:39:64:ffff:${low}::1`;
    default:
      return `2001:db8:39:64:${low}:${low}:${low}:${low}`;
  }
}

describe('a hostile client spreads token requests over the addresses of one IPv6 /64', () => {
  let gateway: RunningGateway;
  let answered = 0;
  let refused = 0;

  beforeAll(async () => {
    gateway = await startGateway({ TOKEN_RATE_LIMIT: String(LIMIT), TRUST_PROXY_HOPS: '1' });
  }, 120_000);

  afterAll(async () => {
    const alive = gateway ? (await fetch(`${gateway.url}/health/live`).catch(() => null))?.status === 200 : false;
    recordFigures('hostile-ipv6-rate-limit', {
      check: 'token rate limit over the addresses of one IPv6 /64',
      tried: `${ADDRESSES} requests from ${ADDRESSES} addresses of one /64, limit ${LIMIT} a minute`,
      accepted: Math.max(0, answered - LIMIT),
      alive,
    });
    await gateway?.stop();
  });

  it('counts the whole /64 as one client: past the limit every address of it gets 429, other clients do not', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < ADDRESSES; i++) statuses.push(await tokenRequest(gateway, addressOfTheNetwork(i)));
    answered = statuses.filter((s) => s !== 429).length;
    refused = statuses.length - answered;
    expect(answered, 'requests of the /64 answered (not 429)').toBe(LIMIT);
    expect(statuses.slice(0, LIMIT).every((s) => s === 400)).toBe(true);
    expect(refused).toBe(ADDRESSES - LIMIT);
    // Another /64 next to it, and an IPv4 client, have counts of their own.
    expect(await tokenRequest(gateway, '2001:db8:39:65::1')).toBe(400);
    expect(await tokenRequest(gateway, '203.0.113.39')).toBe(400);
    // An IPv4 address written IPv4-mapped is that IPv4 client.
    expect(await tokenRequest(gateway, '::ffff:203.0.113.39')).toBe(400);
  }, 120_000);
});
