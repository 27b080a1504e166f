/** The live connection's indicator, and the events received since the page opened. */
import type { GatewayEvent } from '@gateway/client';
import type { AccountEventsState } from '@gateway/react';

function describe(state: AccountEventsState): string {
  switch (state.status) {
    case 'idle':
      return 'not listening (signed out)';
    case 'connecting':
      return state.attempt === 0 ? 'connecting…' : `connecting (attempt ${state.attempt})…`;
    case 'open':
      return 'live';
    case 'reconnecting':
      return `reconnecting in ${Math.round(state.delayMs / 1000)} s (attempt ${state.attempt})`;
    case 'closed':
      return 'closed';
  }
}

export function Connection({ state }: { state: AccountEventsState }) {
  const error = state.status === 'reconnecting' || state.status === 'closed' ? state.error : undefined;
  return (
    <span id="connection" className="state" data-status={state.status} title={error ? String(error) : undefined}>
      <span className={`dot ${state.status}`} /> {describe(state)}
    </span>
  );
}

export function EventLog({ events }: { events: { at: Date; event: GatewayEvent }[] }) {
  return (
    <section id="events">
      <h2>Live events</h2>
      {events.length === 0 && <p>None yet: imports and status changes of your movements appear here as they happen.</p>}
      <ul>
        {events.map(({ at, event }) => (
          <li
            key={event.id}
            data-event-id={event.id}
            data-movement-id={event.type === 'movement' ? event.movement.id : ''}
          >
            {at.toLocaleTimeString()}{' '}
            {event.type === 'movement'
              ? `${event.movement.direction} ${event.movement.amount} ${event.movement.currency_id}: ${event.movement.status} (${event.movement.id})`
              : `events lost (${event.reason}): the list was read again`}
          </li>
        ))}
      </ul>
    </section>
  );
}
