/**
 * `useAccountEvents()`: the account's live events (`GET /v1/events`) while the session is signed in, each
 * applied to the cached movements as it comes (movement-cache.ts), with the connection's state for an
 * indicator: `idle` (signed out, or disabled), `connecting`, `open`, `reconnecting` (with the attempt, the
 * delay and the error), `closed` (with the error that ended it: a refused session, another refusal).
 */
import type { ConnectionState, GatewayEvent } from '@gateway/client';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { applyAccountEvent } from './movement-cache.js';
import { useGatewayClient } from './provider.js';
import { useSession } from './session.js';

export type AccountEventsState = ConnectionState | { status: 'idle' };

export interface AccountEventsOptions {
  /** Listen while true and signed in (default true). */
  enabled?: boolean;
  /** Told each event, after it was applied to the cache. */
  onEvent?: (event: GatewayEvent) => void;
  /** Wait this long before reconnecting (default: the server's `retry`, with backoff after failures). */
  reconnectDelayMs?: number;
}

export interface AccountEvents {
  readonly state: AccountEventsState;
  /** The last event received, if any. */
  readonly lastEvent: GatewayEvent | undefined;
}

const IDLE: AccountEventsState = { status: 'idle' };

export function useAccountEvents(options: AccountEventsOptions = {}): AccountEvents {
  const client = useGatewayClient();
  const queryClient = useQueryClient();
  const signedIn = useSession().status === 'signed_in';
  const enabled = (options.enabled ?? true) && signedIn;
  const { reconnectDelayMs } = options;
  const [state, setState] = useState<AccountEventsState>(IDLE);
  const [lastEvent, setLastEvent] = useState<GatewayEvent>();
  const onEvent = useRef(options.onEvent);
  useEffect(() => {
    onEvent.current = options.onEvent;
  });

  useEffect(() => {
    if (!enabled) {
      setState(IDLE);
      return;
    }
    const controller = new AbortController();
    const { signal } = controller;
    const listen = async () => {
      const events = client.events({
        signal,
        reconnectDelayMs,
        onStateChange: (next) => {
          if (!signal.aborted) setState(next);
        },
      });
      for await (const event of events) {
        applyAccountEvent(queryClient, event);
        setLastEvent(event);
        onEvent.current?.(event);
      }
    };
    // A refusal ends the iteration; its error reaches the state as `closed` (onStateChange).
    listen().catch(() => undefined);
    return () => controller.abort();
  }, [client, queryClient, enabled, reconnectDelayMs]);

  return { state, lastEvent };
}
