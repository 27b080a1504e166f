/** Which gateway (the mock or the demo server: a reload), and an error to force on the mock (at once). */
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { FORCED_ERRORS, forcedError, forceError, SERVERS, type Settings, switchGateway } from './settings.js';

export function SettingsBar({ settings }: { settings: Settings }) {
  const queryClient = useQueryClient();
  const [prefer, setPrefer] = useState(forcedError);
  const known = Object.values(SERVERS).includes(settings.apiUrl as never);
  return (
    <>
      <label>
        Gateway{' '}
        <select id="gateway" value={settings.apiUrl} onChange={(e) => switchGateway(e.target.value)}>
          <option value={SERVERS.demo}>demo server ({SERVERS.demo})</option>
          <option value={SERVERS.mock}>mock ({SERVERS.mock})</option>
          {!known && <option value={settings.apiUrl}>{settings.apiUrl}</option>}
        </select>
      </label>
      <label title="The mock's Prefer header on every request (the server ignores it)">
        Force an error{' '}
        <select
          id="force-error"
          value={prefer}
          onChange={(e) => {
            forceError(e.target.value);
            setPrefer(e.target.value);
            void queryClient.invalidateQueries();
          }}
        >
          {FORCED_ERRORS.map((value) => (
            <option key={value} value={value}>
              {value ? value.replace('code=', 'HTTP ') : 'none'}
            </option>
          ))}
        </select>
      </label>
    </>
  );
}
