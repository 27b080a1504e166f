/**
 * `GatewayProvider`: the client the hooks call, for the components under it (inside TanStack Query's
 * `QueryClientProvider`). It wraps `client.api` for openapi-react-query once per client, leaves retries to
 * the client's own call policy (it retries idempotent calls on network errors, 429 and 5xx already), and
 * forgets the cached answers when the session is signed out, here or in another tab, so that nothing of an
 * account outlives its sign-in.
 */
import type { GatewayClient } from '@gateway/client';
import { type QueryClient, useQueryClient } from '@tanstack/react-query';
import createQueryHooks, { type OpenapiQueryClient } from 'openapi-react-query';
import { createContext, createElement, type ReactNode, useContext, useEffect, useMemo } from 'react';
import { type GatewayPaths, withGatewayErrors } from './gateway-paths.js';
import { gatewayKeys } from './keys.js';

export interface GatewayContextValue {
  readonly client: GatewayClient;
  /** openapi-react-query over the client, with `GatewayError` for every failure. */
  readonly queries: OpenapiQueryClient<GatewayPaths>;
}

const GatewayContext = createContext<GatewayContextValue | null>(null);

/** The hooks' defaults for the gateway's queries (a query's own options win). */
function setGatewayDefaults(queryClient: QueryClient): void {
  // The client already retried what is worth retrying; a 4xx or an ended session would fail again.
  queryClient.setQueryDefaults(gatewayKeys.all(), { retry: false });
}

export interface GatewayProviderProps {
  client: GatewayClient;
  children?: ReactNode;
}

export function GatewayProvider({ client, children }: GatewayProviderProps) {
  const queryClient = useQueryClient();
  // Before the children's queries are built (during this render), not in an effect (after theirs).
  useMemo(() => setGatewayDefaults(queryClient), [queryClient]);
  const value = useMemo(() => ({ client, queries: createQueryHooks(withGatewayErrors(client.api)) }), [client]);
  useEffect(() => {
    const unsubscribe = client.onSessionChange((change) => {
      if (change.type === 'signed_out') queryClient.removeQueries({ queryKey: gatewayKeys.all() });
    });
    return () => {
      unsubscribe();
    };
  }, [client, queryClient]);
  return createElement(GatewayContext.Provider, { value }, children);
}

/** The provider's client and openapi-react-query hooks; throws outside a `GatewayProvider`. */
export function useGateway(): GatewayContextValue {
  const value = useContext(GatewayContext);
  if (!value) throw new Error('useGateway: no GatewayProvider above this component');
  return value;
}

/** The provider's `GatewayClient`. */
export function useGatewayClient(): GatewayClient {
  return useGateway().client;
}
