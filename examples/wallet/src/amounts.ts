/** Amounts shown at their currency's decimals (the deposit terms say them), exactly, by the client's helpers. */
import { formatAmount, parseAmount } from '@gateway/client';
import { useGatewayQuery } from '@gateway/react';

/** Currency id → decimals, from the deposit terms (public, cached). */
export function useDecimals(): Map<string, number> {
  const { data } = useGatewayQuery('get', '/v1/deposit/currencies', { params: { query: { limit: 100 } } });
  return new Map(data?.items.map((terms) => [terms.id, terms.decimals]));
}

export function showAmount(amount: number, decimals: number | undefined): string {
  if (decimals === undefined) return String(amount);
  try {
    return formatAmount(parseAmount(String(amount), decimals), decimals, { minimumFractionDigits: 2 });
  } catch {
    return String(amount); // a number in exponent form, or more places than the terms say
  }
}
