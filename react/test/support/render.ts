/**
 * Renders hooks with react-dom under a QueryClient and a GatewayProvider, and waits on their results:
 * a small stand-in for Testing Library's renderHook/waitFor (act from React, a real DOM node).
 */
import type { GatewayClient } from '@gateway/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import { GatewayProvider } from '../../src/index.js';

export interface Rendered<T> {
  /** The hook's last result. */
  readonly current: T;
  readonly queryClient: QueryClient;
  unmount(): Promise<void>;
}

export async function renderHook<T>(
  client: GatewayClient,
  hook: () => T,
  // Every change re-renders: the test reads results after the render (tracked properties would miss them).
  queryClient = new QueryClient({ defaultOptions: { queries: { notifyOnChangeProps: 'all' } } }),
): Promise<Rendered<T>> {
  let current: T | undefined;
  const Probe = () => {
    current = hook();
    return null;
  };
  const container = document.createElement('div');
  const root = createRoot(container as unknown as Element);
  const tree = (children: ReactNode) =>
    createElement(QueryClientProvider, { client: queryClient }, createElement(GatewayProvider, { client }, children));
  await act(async () => root.render(tree(createElement(Probe))));
  return {
    get current() {
      return current as T;
    },
    queryClient,
    unmount: () => act(async () => root.unmount()),
  };
}

/** Waits (in act) until `check` holds, or fails after `timeoutMs` naming what was awaited. */
export async function waitFor(what: string, check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await act(() => new Promise((resolve) => setTimeout(resolve, 10)));
  }
}

/** Runs `action` (a sign-in, a click's work) in act, so that the updates it causes are rendered. */
export function acting<T>(action: () => Promise<T>): Promise<T> {
  return act(action);
}
