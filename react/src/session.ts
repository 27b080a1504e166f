/**
 * The session in React: `useSession()` reads the client's session store (`useSyncExternalStore`), so a
 * sign-in, a refresh or a sign-out, in this tab or another sharing the storage, re-renders what shows it.
 * `useLogin()` and `useLogout()` are the mutations of the token endpoint (`POST /v1/oauth2/token`, password
 * grant) and of the revocation (`POST /v1/oauth2/revoke`), through the client's `login` and `logout`.
 */
import type { GatewayError, LoginOptions, SessionSnapshot, SessionTokens, Signer } from '@gateway/client';
import { type UseMutationOptions, type UseMutationResult, useMutation } from '@tanstack/react-query';
import { useSyncExternalStore } from 'react';
import { useGatewayClient } from './provider.js';

/** What a server render sees: the storage is read in the browser only. */
const SERVER_SNAPSHOT: SessionSnapshot = { status: 'loading', tokens: null };
const serverSnapshot = () => SERVER_SNAPSHOT;

/** The session: `{ status: 'loading' | 'signed_in' | 'signed_out', tokens }`. */
export function useSession(): SessionSnapshot {
  const { sessionStore } = useGatewayClient();
  return useSyncExternalStore(sessionStore.subscribe, sessionStore.getSnapshot, serverSnapshot);
}

export interface LoginVariables extends LoginOptions {
  signer: Signer;
}

/** Signs in (never retried: a sign-in is not repeated blindly). `mutate({ signer, lifetime? })`. */
export function useLogin(
  options: Omit<UseMutationOptions<SessionTokens, GatewayError, LoginVariables>, 'mutationFn'> = {},
): UseMutationResult<SessionTokens, GatewayError, LoginVariables> {
  const client = useGatewayClient();
  return useMutation({
    mutationKey: ['post', '/v1/oauth2/token'],
    mutationFn: ({ signer, ...login }) => client.login(signer, login),
    ...options,
  });
}

/**
 * Signs out: revokes the sign-in on the server, then forgets the tokens (even when the server cannot be
 * reached: the mutation fails then, as the sign-in may still be alive there).
 */
export function useLogout(
  options: Omit<UseMutationOptions<void, GatewayError, void>, 'mutationFn'> = {},
): UseMutationResult<void, GatewayError, void> {
  const client = useGatewayClient();
  return useMutation({ mutationKey: ['post', '/v1/oauth2/revoke'], mutationFn: () => client.logout(), ...options });
}
