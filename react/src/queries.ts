/**
 * Typed query and mutation hooks for every operation of the spec: openapi-react-query's, over the
 * provider's client, with `GatewayError` for every failure (its `kind`, `status`, `code`, `requestId`).
 *
 *   const { data, error } = useGatewayQuery('get', '/v1/platforms/{id}', { params: { path: { id } } });
 *
 * Their keys are `gatewayKeys.query(path, init)`.
 */
import type { GatewayClient } from '@gateway/client';
import createQueryHooks, {
  type QueryOptionsFunction,
  type UseMutationMethod,
  type UseQueryMethod,
  type UseSuspenseQueryMethod,
} from 'openapi-react-query';
import type { MediaType } from 'openapi-typescript-helpers';
import { type GatewayPaths, withGatewayErrors } from './gateway-paths.js';
import { useGateway } from './provider.js';

type Untyped = (...args: unknown[]) => unknown;

/** `useQuery` for a GET of the spec: `useGatewayQuery('get', path, init?, options?)`. */
export const useGatewayQuery = ((...args: unknown[]) =>
  (useGateway().queries.useQuery as Untyped)(...args)) as UseQueryMethod<GatewayPaths, MediaType>;

/** `useSuspenseQuery` for a GET of the spec. */
export const useGatewaySuspenseQuery = ((...args: unknown[]) =>
  (useGateway().queries.useSuspenseQuery as Untyped)(...args)) as UseSuspenseQueryMethod<GatewayPaths, MediaType>;

/** `useMutation` for any operation of the spec: `useGatewayMutation('post', path)`, then `mutate(init)`. */
export const useGatewayMutation = ((...args: unknown[]) =>
  (useGateway().queries.useMutation as Untyped)(...args)) as UseMutationMethod<GatewayPaths, MediaType>;

/** The provider's `queryOptions(method, path, init?, options?)`, for `useQueries`, prefetching and loaders. */
export function useGatewayQueryOptions(): QueryOptionsFunction<GatewayPaths, MediaType> {
  return useGateway().queries.queryOptions;
}

/** `queryOptions` over a client, outside React (a router's loader, `queryClient.prefetchQuery`). */
export function gatewayQueryOptions(client: GatewayClient): QueryOptionsFunction<GatewayPaths, MediaType> {
  return createQueryHooks(withGatewayErrors(client.api)).queryOptions;
}
