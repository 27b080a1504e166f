/**
 * React hooks for the Exchange Gateway API, over `@gateway/client` and TanStack Query v5: typed queries and
 * mutations for every operation (openapi-react-query's), cursor lists as infinite queries, the query keys,
 * the session (`useSession`, `useLogin`, `useLogout`) and the account's live events applied to the cached
 * movements (`useAccountEvents`). Every failure is the client's `GatewayError`.
 */
export { type AccountEvents, type AccountEventsOptions, type AccountEventsState, useAccountEvents } from './events.js';
export type { GatewayPaths, GetPath } from './gateway-paths.js';
export {
  type CursorListData,
  type CursorListInit,
  type CursorListOptions,
  type CursorListParams,
  type CursorPage,
  type CursorPath,
  gatewayInfiniteQueryOptions,
  nextCursor,
  useGatewayInfiniteQuery,
} from './infinite.js';
export { gatewayKeys } from './keys.js';
export { applyAccountEvent, withMovement } from './movement-cache.js';
export {
  GatewayProvider,
  type GatewayProviderProps,
  useGateway,
  useGatewayClient,
} from './provider.js';
export {
  gatewayQueryOptions,
  useGatewayMutation,
  useGatewayQuery,
  useGatewayQueryOptions,
  useGatewaySuspenseQuery,
} from './queries.js';
export { type LoginVariables, useLogin, useLogout, useSession } from './session.js';
