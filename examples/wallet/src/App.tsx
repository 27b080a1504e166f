/** The wallet: settings and the connection in the header; sign-in, or the account (movements, terms, events). */
import type { GatewayEvent } from '@gateway/client';
import { useAccountEvents, useLogout, useSession } from '@gateway/react';
import { useState } from 'react';
import { ErrorNote } from './ErrorNote.js';
import { Connection, EventLog } from './Events.js';
import { Movements } from './Movements.js';
import { SettingsBar } from './SettingsBar.js';
import { SignIn } from './SignIn.js';
import type { Settings } from './settings.js';
import { Terms } from './Terms.js';

export function App({ settings }: { settings: Settings }) {
  const session = useSession();
  const logout = useLogout();
  const [events, setEvents] = useState<{ at: Date; event: GatewayEvent }[]>([]);
  // One stream per tab, while signed in; each event also updates the cached movements.
  const live = useAccountEvents({
    onEvent: (event) => setEvents((log) => [{ at: new Date(), event }, ...log].slice(0, 20)),
  });

  return (
    <>
      <header>
        <h1>Gateway wallet</h1>
        <SettingsBar settings={settings} />
        <Connection state={live.state} />
        {session.status === 'signed_in' && (
          <button type="button" id="sign-out" onClick={() => logout.mutate()} disabled={logout.isPending}>
            Sign out
          </button>
        )}
      </header>
      <ErrorNote error={logout.error} />
      {session.status === 'loading' && <p>Loading…</p>}
      {session.status === 'signed_out' && <SignIn lifetime={settings.lifetime} />}
      {session.status === 'signed_in' && (
        <main id="account">
          <EventLog events={events} />
          <Movements />
          <Terms />
        </main>
      )}
    </>
  );
}
