/** The page's client: the gateway of the settings, the session in localStorage (per gateway), Prefer added. */
import { createGatewayClient, type GatewayClient, webStorage } from '@gateway/client';
import { forcedError, type Settings } from './settings.js';

/** fetch, with the mock's `Prefer` header when an error is forced. */
const fetchWithPrefer: typeof fetch = (input, init) => {
  const prefer = forcedError();
  if (!prefer) return fetch(input, init);
  const request = new Request(input, init);
  request.headers.set('Prefer', prefer);
  return fetch(request);
};

export function createClient(settings: Settings): GatewayClient {
  return createGatewayClient({
    baseUrl: settings.apiUrl,
    chainId: 'W',
    clientId: 'waves.exchange',
    // Each gateway its own session: the mock's tokens mean nothing to the server.
    storage: webStorage(localStorage, `gateway.session@${settings.apiUrl}`),
    fetch: fetchWithPrefer,
    // With short-lived tokens (a demonstration of refreshes), refresh a quarter of their lifetime ahead.
    refreshMarginSeconds: settings.lifetime ? Math.max(1, Math.floor(settings.lifetime / 4)) : undefined,
  });
}
