/**
 * The page's settings, in its address so that a reload keeps them: which gateway (`?api=`: the mock or the
 * demo server, or `VITE_API_URL` at build time), an error to force on the mock (`?prefer=code%3D503`: the
 * mock's `Prefer` header on every request; the server accepts and ignores it), and a short token lifetime
 * to watch refreshes (`?lifetime=` seconds; default one week).
 *
 * The demo server and the mock are on the ports vite was started with (`PORT`, `MOCK_PORT`: vite.config.ts).
 */
export const SERVERS = {
  demo: `http://127.0.0.1:${import.meta.env.VITE_GATEWAY_PORT || '3000'}`,
  mock: `http://127.0.0.1:${import.meta.env.VITE_MOCK_PORT || '4010'}`,
} as const;

/** The failures the mock can be asked for (`Prefer: code=<status>`). */
export const FORCED_ERRORS = ['', 'code=401', 'code=404', 'code=500', 'code=503'] as const;

export interface Settings {
  apiUrl: string;
  lifetime: number | undefined;
}

const query = () => new URLSearchParams(window.location.search);

export function readSettings(): Settings {
  const lifetime = Number(query().get('lifetime'));
  return {
    apiUrl: query().get('api') || import.meta.env.VITE_API_URL || SERVERS.demo,
    lifetime: Number.isInteger(lifetime) && lifetime > 0 ? lifetime : undefined,
  };
}

/** Another gateway: the page reloads with it (a new client, a new cache, its own stored session). */
export function switchGateway(apiUrl: string): void {
  const next = query();
  next.set('api', apiUrl);
  window.location.search = next.toString();
}

/** The `Prefer` value sent with every request now ('' for none); changed without a reload. */
export function forcedError(): string {
  return query().get('prefer') ?? '';
}

export function forceError(prefer: string): void {
  const next = query();
  if (prefer) next.set('prefer', prefer);
  else next.delete('prefer');
  window.history.replaceState(null, '', `?${next.toString()}`);
}
